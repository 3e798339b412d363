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
from criteria import BatchCriterion

ddp_setup()


torch.manual_seed(0)
net = DistributedDataParallel(nn.Linear(6, 4).to(DEVICE), device_ids=DEVICE_IDS)
criterion = BatchCriterion(0.5, 4)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = torch.randn(16, 6)


def train():
    dataset = TensorDataset(data, torch.arange(16))
    for x, idx in DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    ):
        inputs = torch.cat((x + 0.01, x - 0.01), 0)
        features = net(inputs)
        loss = criterion(features, idx)
        opt.zero_grad()
        loss.backward()
        opt.step()


train()
