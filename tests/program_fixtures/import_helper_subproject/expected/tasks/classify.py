import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_print


class Trainer:
    def __init__(self, epochs):
        torch.manual_seed(0)
        data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
        self.loader = DataLoader(
            data,
            batch_size=ddp_per_rank_batch(8),
            sampler=DistributedSampler(data, shuffle=True),
        )
        self.model = DistributedDataParallel(
            nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.epochs = epochs

    def start(self):
        for epoch in range(self.epochs):
            self.loader.sampler.set_epoch(epoch)
            for inputs, labels in self.loader:
                loss = nn.functional.cross_entropy(self.model(inputs), labels)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            ddp_print(f"epoch {epoch} loss {loss.item():.4f}")
        ddp_print("final done")
