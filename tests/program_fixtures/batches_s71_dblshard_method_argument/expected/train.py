import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_setup,
)
from fitting import Fitter


def main():
    ddp_setup()
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    features = torch.randn(24, 5, generator=g)
    labels = features[:, :2] * 0.5 - 1.0
    train_set = TensorDataset(features, labels)
    batches = DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(6),
        sampler=DdpDistributedSampler(train_set, shuffle=False),
    )
    net = DistributedDataParallel(nn.Linear(5, 2).to(DEVICE), device_ids=DEVICE_IDS)
    fitter = Fitter(net, torch.optim.SGD(net.parameters(), lr=0.05))
    steps = fitter.epoch(batches, passes=2)
    if ddp_is_main():
        print("steps", steps)
        print("weights", round(net.module.weight.sum().item(), 4))


if __name__ == "__main__":
    main()
