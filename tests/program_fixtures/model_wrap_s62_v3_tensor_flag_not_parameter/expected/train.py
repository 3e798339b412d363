import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup, ddp_shard_batch
from sdf import SDFNet

ddp_setup()


torch.manual_seed(0)
net = SDFNet()
model = DistributedDataParallel(net.to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(16, 3)
target = data.norm(dim=1) - 0.5

for epoch in range(2):
    for step in range(4):
        x, y = data[step * 4 : (step + 1) * 4], target[step * 4 : (step + 1) * 4]
        x = ddp_shard_batch(x, rows=True)
        y = ddp_shard_batch(y, rows=True)
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ddp_print(f"surface points {net.surface_points(8).shape[0]}")
ddp_print(f"weights {sum(p.sum().item() for p in model.parameters()):.4f}")
