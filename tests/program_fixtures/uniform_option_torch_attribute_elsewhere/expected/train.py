import argparse

import torch
import torch.nn as nn
import torchvision.datasets as dset
import torchvision.transforms as tforms
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_rank0_first, ddp_setup
from flows import PlanarFlow, describe

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--data", choices=["mnist", "cifar10"], default="mnist")
parser.add_argument("--layer_type", default="ignore")
parser.add_argument("--time_length", type=float, default=0.5)
args = parser.parse_args()

if args.layer_type == "blend":
    args.time_length = 1.0


def get_dataset(args):
    if args.data == "mnist":
        train_set = ddp_rank0_first(
            dset.MNIST,
            root="./data",
            train=True,
            transform=tforms.ToTensor(),
            download=True,
        )
    elif args.data == "cifar10":
        train_set = ddp_rank0_first(
            dset.CIFAR10,
            root="./data",
            train=True,
            transform=tforms.ToTensor(),
            download=True,
        )
    return train_set


if __name__ == "__main__":
    train_set = get_dataset(args)
    describe(PlanarFlow(4))
    loader = torch.utils.data.DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(train_set, shuffle=True),
    )
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(784, 10), PlanarFlow(10)).to(DEVICE),
        device_ids=DEVICE_IDS,
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x.view(x.size(0), -1)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
