"""A shuffled validation loader handed to fit() of another module, which hands it on to
check() of its own module, where a loop evaluates it: left whole (DP015, proved through the
hand-on), not sharded as training data under DP084's "no loop of its module iterates it"."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_setup,
)
from trainer import fit

ddp_setup()


torch.manual_seed(0)
x = torch.randn(16, 6)
y = (x.sum(1, keepdim=True) > 0).float()
model = DistributedDataParallel(nn.Linear(6, 1).to(DEVICE), device_ids=DEVICE_IDS)
train_dataset = TensorDataset(x, y)
# dp2ddp: DP011 no epoch loop found for sampler.set_epoch
train_loader = DataLoader(
    train_dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(train_dataset, shuffle=True, advance_epoch=True),
)
# dp2ddp: DP015 evaluation metrics not reduced
held = DataLoader(TensorDataset(x[:8], y[:8]), batch_size=4, shuffle=True)
fit(model, train_loader, held, 2)
