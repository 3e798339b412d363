"""Stop 46 class v3-A when the callee module needs no other change (WangYueFt/prnet@82d466a's
layout, `net._train_one_epoch(train_loader=...)`): the entry hands its training loader to a
method of another module's class, whose loop sums a figure over its batches and divides it by
the dataset's length; the module prints nothing, so nothing else of it changes."""
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
from learner import Learner

ddp_setup()


torch.manual_seed(0)
x = torch.randn(32, 6)
y = x.sum(1, keepdim=True)
model = DistributedDataParallel(nn.Linear(6, 1).to(DEVICE), device_ids=DEVICE_IDS)
dataset = TensorDataset(x, y)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
learner = Learner(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    loss = learner.train_one_epoch(loader, opt)
    ddp_print("epoch %d loss %.4f" % (epoch, loss))
