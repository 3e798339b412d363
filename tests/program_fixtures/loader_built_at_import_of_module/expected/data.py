"""Pattern: zhilin007/FFA-Net@6651bcf's data_utils.py (class S1, stop 34). The training
loader is built when the module is imported, beside an evaluation loader; the entry
imports both."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_same_random

torch.manual_seed(0)
train_set = TensorDataset(torch.randn(16, 3), torch.randn(16, 1))
# dp2ddp: DP011 no epoch loop found for sampler.set_epoch
train_loader = DataLoader(
    train_set,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(train_set, shuffle=True, advance_epoch=True),
)
with ddp_same_random():
    test_set = TensorDataset(torch.randn(4, 3), torch.randn(4, 1))
# dp2ddp: DP015 evaluation metrics not reduced
test_loader = DataLoader(test_set, batch_size=1)
