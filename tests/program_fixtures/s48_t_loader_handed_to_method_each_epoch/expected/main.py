"""A loader handed to a method of another module's class whose loop iterates that very
parameter, `learner.train_one_epoch(loader, opt)`, makes one pass per call: the epoch loop
around the call numbers them, set_epoch goes there (stop 47: DP011 said its passes "are not
one per call" and that no epoch loop of this module numbers them). Still DP011, true:
`fit()` runs its own epoch loop over the loader it is handed, and `Learner(model, extra)`
keeps its loader for `train_extra()`: no loop here numbers their passes."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

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
opt = torch.optim.SGD(model.parameters(), lr=0.05)
dataset = TensorDataset(x, y)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DistributedSampler(dataset, shuffle=True),
)
fit_dataset = TensorDataset(x, y)
# dp2ddp: DP011 no epoch loop found for sampler.set_epoch
fit_loader = DataLoader(
    fit_dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(fit_dataset, shuffle=True, advance_epoch=True),
)
extra_dataset = TensorDataset(x, y)
# dp2ddp: DP011 no epoch loop found for sampler.set_epoch
extra = DataLoader(
    extra_dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(extra_dataset, shuffle=True, advance_epoch=True),
)
learner = Learner(model, extra)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    learner.train_one_epoch(loader, opt)
learner.fit(fit_loader, opt, 2)
learner.train_extra(opt)
ddp_print("weights %.4f" % model.module.weight.sum().item())
