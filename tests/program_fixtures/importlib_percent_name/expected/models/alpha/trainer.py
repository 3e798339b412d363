import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
)


class Trainer:
    def __init__(self):
        torch.manual_seed(0)
        self.model = DistributedDataParallel(
            nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def fit(self):
        g = torch.Generator().manual_seed(1)
        data = torch.utils.data.TensorDataset(
            torch.randn(16, 4, generator=g), torch.randn(16, 2, generator=g)
        )
        for x, y in torch.utils.data.DataLoader(
            data,
            batch_size=ddp_per_rank_batch(4),
            sampler=DdpDistributedSampler(data, shuffle=False),
        ):
            loss = nn.functional.mse_loss(self.model(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        ddp_print("weights %.4f" % self.model.module.weight.sum().item())
