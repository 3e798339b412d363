import torch.nn as nn

MODEL = nn.DataParallel(nn.Linear(2, 1))
