import torch
from torch.utils.data import DataLoader
from torchvision.datasets import CIFAR10, CIFAR100


def cifar10_loaders(batch_size, data_dir="data"):
    train_set = CIFAR10(data_dir, train=True, download=True)
    return DataLoader(train_set, batch_size=batch_size, shuffle=True)


def cifar100_loaders(batch_size, data_dir="data"):
    train_set = CIFAR100(data_dir, train=True, download=True)
    return DataLoader(train_set, batch_size=batch_size, shuffle=True)


def get_datasets(args):
    if args.datasets == "CIFAR10":
        return cifar10_loaders(batch_size=args.batch_size)
    elif args.datasets == "CIFAR100":
        return cifar100_loaders(batch_size=args.batch_size)
