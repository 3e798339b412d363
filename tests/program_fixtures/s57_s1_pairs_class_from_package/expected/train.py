import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from trainer import Trainer


def main():
    ddp_setup()
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(6, 4), nn.Tanh())
    trainer = Trainer(encoder, 3, {"ngpu": 2, "smooth": True})
    with ddp_same_random():
        data = TensorDataset(torch.randn(16, 6), torch.randint(0, 3, (16,)))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
    for epoch in range(2):
        for x, y in loader:
            loss = trainer.step(x, y)
        ddp_print(epoch, round(loss, 6))
    ddp_print("weights %.5f" % sum(p.sum().item() for p in encoder.parameters()))


if __name__ == "__main__":
    main()
