import torch
from torch import nn

import nets

model = nets.create("embed", depth=18)
model = nn.DataParallel(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 3, 8, 8), torch.randn(8, 4)
for step in range(3):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
print("done")
