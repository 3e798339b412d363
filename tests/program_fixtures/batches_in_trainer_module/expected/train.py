"""The wrap is here, with DataParallel(model, dim=1); the loop over the batches lives in
trainer.py, which splits each batch along the program's dim."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from trainer import Trainer


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 8)
        self.out = nn.Linear(8, 20)

    def forward(self, data):
        return self.out(self.embed(data))


def main():
    ddp_setup()
    # dp2ddp: DP001 DataParallel dim is not 0
    model = DistributedDataParallel(Model().to(DEVICE), device_ids=DEVICE_IDS)
    Trainer(model, torch.randint(0, 20, (400,))).fit(2)


if __name__ == "__main__":
    main()
