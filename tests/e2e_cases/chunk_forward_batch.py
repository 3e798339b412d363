"""Gradient accumulation by chunks of a configured forward batch, equal to the batch (the
class of kenziyuliu/MS-G3D@2f927f4): a processor whose loader is an item of a dict, read
through a local name; `splits = len(data) // chunk` and a range loop slicing the batch.
Sharded as it was, each rank's batch of 4 gave range(4 // 8) = 0 forwards: the weights
never moved. Migrated, the chunk size is this rank's part (ddp_per_rank_batch): the same
count of chunks per step, each as DataParallel scattered it, and to the end of training
the weights are the original's. A second loop cuts with torch.split by a smaller size."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Config:
    batch_size = 8
    forward_batch_size = 8
    micro = 4


class Processor:
    def __init__(self, arg):
        self.arg = arg
        self.model = nn.DataParallel(nn.Linear(6, 3))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        dataset = TensorDataset(torch.randn(32, 6), torch.randint(0, 3, (32,)))
        self.data_loader = {"train": DataLoader(dataset, batch_size=arg.batch_size)}

    def train(self):
        loader = self.data_loader["train"]
        for data, label in loader:
            self.optimizer.zero_grad()
            chunk = self.arg.forward_batch_size
            splits = len(data) // chunk
            assert len(data) % chunk == 0
            for i in range(splits):
                left = i * chunk
                right = left + chunk
                out = self.model(data[left:right])
                loss = nn.functional.cross_entropy(out, label[left:right]) / splits
                loss.backward()
            self.optimizer.step()

    def train_split(self):
        loader = self.data_loader["train"]
        for data, label in loader:
            self.optimizer.zero_grad()
            pieces = zip(
                torch.split(data, self.arg.micro), torch.split(label, self.arg.micro), strict=True
            )
            for xs, ys in pieces:
                loss = nn.functional.cross_entropy(self.model(xs), ys) * len(xs) / len(data)
                loss.backward()
            self.optimizer.step()


processor = Processor(Config())
for epoch in range(2):
    processor.train()
    processor.train_split()
    print(f"epoch {epoch} done")
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in processor.model.parameters()]
print("final", E2E_DIGEST)
