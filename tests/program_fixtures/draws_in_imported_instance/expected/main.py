# Stop 45 (v3-B, program-wide): the batch-mixing object is an instance of another module's
# class, handed to the training function as a parameter; its __call__ decides with Python's
# unseeded `random` and draws partners and weights sized by the rank's batch (through a
# method it calls): DP006 at the call, naming augs.py's line.
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from augs import BatchAugs


def train(model, loader, opt, batch_augs, epoch):
    for x, y in loader:
        x, y, _ = batch_augs(x, y, epoch)
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    ddp_setup()
    torch.manual_seed(0)
    x = torch.randn(16, 4)
    dataset = TensorDataset(x, x.sum(1, keepdim=True))
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    augs = BatchAugs(1.0)
    for epoch in range(2):
        train(model, loader, opt, augs, epoch)
    ddp_print("weights %.4f" % model.module.weight.sum().item())


if __name__ == "__main__":
    main()
