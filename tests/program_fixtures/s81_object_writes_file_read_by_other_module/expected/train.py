"""The preprocessor's object (prep.py) is built, then run: its file is written on rank 0
once migrated; the dataset of another module (tables.py) reads it when built. Both paths
come from one settings entry (round 33, lonePatient/char-cnn-text-classification@814ad1b,
where writer and reader live in two modules: no barrier, no warning, rank 1's
FileNotFoundError on a first run). A barrier follows `prep.run()`."""
import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from prep import Preprocessor
from tables import TableSet

SETTINGS = {"table": "work/table.csv"}


def main():
    ddp_setup()
    os.makedirs("work", exist_ok=True)
    prep = Preprocessor(SETTINGS["table"])
    prep.run()
    ddp_barrier()
    data = TableSet(source=SETTINGS["table"])
    torch.manual_seed(0)
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        for x, y in DataLoader(
            data,
            batch_size=ddp_per_rank_batch(8),
            sampler=DdpDistributedSampler(data, shuffle=False),
        ):
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    ddp_print("rows", len(data), "weights", round(model.module.weight.sum().item(), 6))


if __name__ == "__main__":
    main()
