import os
import sys

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_print, ddp_setup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import torch
from torch.utils.data import DataLoader, TensorDataset

from mylib.trainer import Trainer


ddp_setup()


if __name__ == "__main__":
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    model = Trainer(torch.nn.Linear(4, 1)).fit(
        DataLoader(
            data,
            batch_size=ddp_per_rank_batch(4),
            sampler=DdpDistributedSampler(data, shuffle=False),
        ),
    )
    ddp_print("weights", round(model.weight.sum().item(), 4))
