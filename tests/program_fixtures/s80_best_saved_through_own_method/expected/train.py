"""The best checkpoint is saved by another module's object, called from a method of the
trainer that the epoch loop calls; after the loop every rank loads it back."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from keeper import BestKeeper

ddp_setup()


class Trainer:
    def __init__(self):
        torch.manual_seed(0)
        x = torch.randn(48, 4)
        y = x.sum(1, keepdim=True)
        train_dataset = TensorDataset(x[:32], y[:32])
        self.train_loader = DataLoader(
            train_dataset,
            batch_size=ddp_per_rank_batch(8),
            sampler=DdpDistributedSampler(train_dataset, shuffle=False),
        )
        self.model = DistributedDataParallel(
            nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)
        self.keep = BestKeeper("checkpoints")
        self.check = (x[32:], y[32:])

    def _epoch(self):
        for x, y in self.train_loader:
            loss = nn.functional.mse_loss(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        with torch.no_grad():
            score = nn.functional.mse_loss(self.model(self.check[0]), self.check[1]).item()
        self.keep(score, self.model)

    def fit(self, epochs):
        for _ in range(epochs):
            self._epoch()
        ddp_barrier()
        self.model.load_state_dict(torch.load(self.keep.path(), map_location=DEVICE))
        ddp_print("best score", round(self.keep.best, 6))


Trainer().fit(3)
