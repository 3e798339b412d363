"""The trainers' base: its own cuda() wraps the model it builds."""

import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DEVICE, DEVICE_IDS, DdpDistributedSampler, ddp_per_rank_batch


class Framework:
    def __init__(self):
        self.model = self.build()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        rows = torch.randn(16, 4, generator=torch.Generator().manual_seed(4))
        dataset = TensorDataset(rows, (rows.sum(1) > 0).long())
        self.loader = DataLoader(
            dataset,
            batch_size=ddp_per_rank_batch(8),
            sampler=DdpDistributedSampler(dataset, shuffle=False),
        )

    def cuda(self):
        self.model = DistributedDataParallel(
            self.model.to(DEVICE), device_ids=DEVICE_IDS
        )

    def epoch(self):
        for x, y in self.loader:
            loss = self.loss(x, y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
