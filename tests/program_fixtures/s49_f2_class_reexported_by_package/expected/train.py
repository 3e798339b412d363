import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_print, ddp_setup
from pkg import Trainer

ddp_setup()


def net():
    return nn.Linear(6, 1)


torch.manual_seed(0)
x = torch.randn(32, 6)
y = x.sum(1, keepdim=True)
dataset = TensorDataset(x, y)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
teacher = nn.Linear(6, 1)
trainer = Trainer(net(), teacher=teacher)
for epoch in range(2):
    for xb, yb in loader:
        trainer.step(xb, yb)
ddp_print("teacher %.4f" % trainer.teacher.weight.sum().item())
