import argparse

import torch

from data import PairLoader, make_set
from torch.nn.parallel import DistributedDataParallel
import atexit
import os
import torch.distributed as dist

# --- dp2ddp: DistributedDataParallel setup. Launch with: torchrun --nproc_per_node=N train.py
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


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--shuffle", type=int, default=1)
    args = parser.parse_args()
    model = DistributedDataParallel(torch.nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = PairLoader(make_set(64), batch_size=8, shuffle=args.shuffle)
    valid_loader = PairLoader(make_set(16), batch_size=8)
    for epoch in range(2):
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        with torch.no_grad():
            total = sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in valid_loader)
        if ddp_is_main():
            print(epoch, total)


if __name__ == "__main__":
    main()
