import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_setup, ddp_shard_batch
from batches import Batches

ddp_setup()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


torch.manual_seed(0)
model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = Batches(32, 8)
for step in range(4):
    x, y = data.get_batch()
    x, y = ddp_shard_batch((x, y))
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
if ddp_is_main():
    print(f"trained 4 steps, rows {x.shape[0]} {y.shape[0]}")
    print(f"weights {model.module.fc.weight.sum().item():.4f}")
