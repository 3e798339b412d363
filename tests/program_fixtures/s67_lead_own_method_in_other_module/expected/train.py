"""Issue 28, round 20 (stop 67: Kaixin-Wu/NEU_NMT_v2's translate step): the wrap, under a
device guard, is handed to another module's function that calls a method of the model's
own class on it (decoding.py)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from decoding import decode

ddp_setup()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)

    def greedy(self, x):
        return self.fc(x).argmax(-1)


torch.manual_seed(0)
data = TensorDataset(torch.randn(8, 4), torch.randint(0, 3, (8,)))
model = Net()
model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    for x, y in DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(data, shuffle=False),
    ):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    ddp_print("epoch", epoch, "decoded", decode(model, torch.ones(2, 4)).tolist())
ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
