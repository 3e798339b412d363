import torch
import torch.nn as nn

from sdf import SDFNet

torch.manual_seed(0)
net = SDFNet()
model = nn.DataParallel(net)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(16, 3)
target = data.norm(dim=1) - 0.5

for epoch in range(2):
    for step in range(4):
        x, y = data[step * 4 : (step + 1) * 4], target[step * 4 : (step + 1) * 4]
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"surface points {net.surface_points(8).shape[0]}")
print(f"weights {sum(p.sum().item() for p in model.parameters()):.4f}")
