"""verify case, migrated (KNOWN BAD for --to-end, issue 29): as mlp_ddp.py, but every rank
reads stdin and names its run directory from what it read and its own rank (standing for a
clock read or a first free index each rank computes): two run directories, stdin read by
rank 1.

Options (after `--` on the dp2ddp verify command line) switch on what the known-good and
known-bad cases need: a summed loss, Adam, dropout, BatchNorm.
"""

import argparse
import atexit
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

# --- dp2ddp: DistributedDataParallel setup. Launch with: torchrun --nproc_per_node=N mlp_dp.py
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
RANK = int(os.environ.get("RANK", "0"))
WORLD_SIZE = int(os.environ.get("WORLD_SIZE", "1"))
DEVICE = torch.device("cuda", LOCAL_RANK) if torch.cuda.is_available() else torch.device("cpu")
DEVICE_IDS = [LOCAL_RANK] if torch.cuda.is_available() else None


def ddp_setup():
    """Join torchrun's process group (NCCL on GPUs, gloo on CPU); plain python: a world of one."""
    if dist.is_initialized():
        return
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    if torch.cuda.is_available():
        torch.cuda.set_device(LOCAL_RANK)
    if "MASTER_ADDR" in os.environ:
        dist.init_process_group(backend=backend)
    else:
        dist.init_process_group(backend=backend, store=dist.HashStore(), rank=0, world_size=1)
    atexit.register(ddp_cleanup)


def ddp_cleanup():
    """Leave the process group at exit, also when training raised."""
    if dist.is_initialized():
        dist.destroy_process_group()


def ddp_is_main():
    """Rank 0 prints, logs and saves for everyone."""
    return RANK == 0


class NoisyPoints(Dataset):
    """Fixed points; every read adds fresh noise, like a random data augmentation."""

    def __init__(self, n=96):
        generator = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 8, generator=generator)
        self.y = self.x.sum(dim=1, keepdim=True).sin()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index] + 0.1 * torch.randn(8), self.y[index]


class Net(nn.Module):
    def __init__(self, dropout, batchnorm=False, transposed_dropout=0.0):
        super().__init__()
        norm = [nn.BatchNorm1d(32)] if batchnorm else []
        self.body = nn.Sequential(
            nn.Linear(8, 32), *norm, nn.Tanh(), nn.Dropout(dropout), nn.Linear(32, 1)
        )
        self.transposed_dropout = transposed_dropout

    def forward(self, x):
        out = self.body(x)
        if self.transposed_dropout:  # batch last: a mask that cannot follow the batch
            out = nn.functional.dropout(out.t(), self.transposed_dropout, self.training).t()
        return out


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--loss", choices=["mean", "sum"], default="mean")
    parser.add_argument("--optimizer", choices=["sgd", "adam"], default="sgd")
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--batchnorm", action="store_true")
    parser.add_argument("--transposed-dropout", type=float, default=0.0)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()

    device = DEVICE
    model = Net(args.dropout, args.batchnorm, args.transposed_dropout)
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)

    dataset = NoisyPoints()
    loader = DataLoader(
        dataset,
        batch_size=16 // WORLD_SIZE,
        sampler=DistributedSampler(dataset, shuffle=True),
    )
    criterion = nn.MSELoss(reduction=args.loss)
    if args.optimizer == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)

    name = sys.stdin.readline().strip() or "exp"
    os.makedirs(os.path.join("runs", f"{name}_{RANK}"), exist_ok=True)
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        if ddp_is_main():
            print(f"epoch {epoch}: loss {loss.item():.4f}")
    if ddp_is_main():
        torch.save(model.state_dict(), "mlp.pt")


if __name__ == "__main__":
    main()
