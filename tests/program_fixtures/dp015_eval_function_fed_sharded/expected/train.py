import argparse

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
    ddp_same_random,
    ddp_setup,
)
from evaluate import eval_score


def make_loader(n, tag=""):
    with ddp_same_random():
        dataset = TensorDataset(torch.randn(n, 4), torch.randn(n, 1))
    return DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=(tag == "train")),
    )


def make_loaders():
    train_loader = make_loader(16, tag="train")
    val_loader = make_loader(8, tag="val")
    return train_loader, val_loader


def main():
    ddp_setup()
    train_loader, val_loader = make_loaders()
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        score = eval_score(val_loader, model.module)
        ddp_print("epoch", epoch, "val", score)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    main()
