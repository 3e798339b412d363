import torch
from torch import nn

model = nn.DataParallel(nn.Linear(4, 2))
print(model(torch.randn(2, 4)))
