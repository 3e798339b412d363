import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup, ddp_shard_batch
from utils import read_json, write_json


class Splits:
    def __init__(self, root):
        self.split_path = os.path.join(root, "splits.json")
        self.splits = self._prepare_split()

    def _prepare_split(self):
        if not os.path.exists(self.split_path):
            # dp2ddp: DP054
            write_json([{"train": [0, 1, 2, 3], "test": [4, 5]}], self.split_path)
            return read_json(self.split_path)
        return read_json(self.split_path)


def main():
    ddp_setup()
    splits = Splits("work")
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.arange(32, dtype=torch.float32).view(8, 4) / 32
    for step in range(2):
        loss = model(ddp_shard_batch(data[splits.splits[0]["train"]])).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ddp_print(f"step {step} loss {loss.item():.6f}")


if __name__ == "__main__":
    main()
