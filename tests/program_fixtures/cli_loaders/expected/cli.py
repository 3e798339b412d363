import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_setup
from trainer import Trainer


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=8)
    args = parser.parse_args()
    g = torch.Generator().manual_seed(2)
    train_set = TensorDataset(torch.randn(40, 6, generator=g), torch.randint(0, 3, (40,), generator=g))
    eval_set = TensorDataset(torch.randn(20, 6, generator=g), torch.randint(0, 3, (20,), generator=g))
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    train_loader = DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(args.batch_size),
        sampler=DdpDistributedSampler(train_set, shuffle=True, advance_epoch=True),
    )
    # dp2ddp: DP015 evaluation metrics not reduced
    eval_loader = DataLoader(eval_set, batch_size=args.batch_size)
    Trainer(train_loader, eval_loader).run(epochs=2)


if __name__ == "__main__":
    main()
