import torch
import torch.nn as nn

from helpers import lr_for

model = nn.DataParallel(nn.Linear(4, 4))
opt = torch.optim.SGD(model.parameters(), lr=lr_for(32))
for epoch in range(2):
    opt.zero_grad()
    model(torch.randn(8, 4)).sum().backward()
    opt.step()
    print(f"epoch {epoch}")
