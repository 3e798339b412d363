"""v3-E (stop 42, jnhwkim/ban-vqa@ef4cc36's main.py -> train.py): the entry hands the
training function of another module its model and loader."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from trainlib import train

ddp_setup()


model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
with ddp_same_random():
    dataset = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
# dp2ddp: DP011 no epoch loop found for sampler.set_epoch
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=True, advance_epoch=True),
)
train(model, loader, 3)
