import torch
from torch.utils.data import DataLoader
from torchvision.datasets import CIFAR10, CIFAR100

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch


def cifar10_loaders(batch_size, data_dir="data"):
    train_set = CIFAR10(data_dir, train=True, download=True)
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    return DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(train_set, shuffle=True, advance_epoch=True),
    )


def cifar100_loaders(batch_size, data_dir="data"):
    train_set = CIFAR100(data_dir, train=True, download=True)
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    return DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(batch_size),
        sampler=DdpDistributedSampler(train_set, shuffle=True, advance_epoch=True),
    )


def get_datasets(args):
    if args.datasets == "CIFAR10":
        return cifar10_loaders(batch_size=args.batch_size)
    elif args.datasets == "CIFAR100":
        return cifar100_loaders(batch_size=args.batch_size)
