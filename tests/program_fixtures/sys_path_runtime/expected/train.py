import atexit
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

sys.path.insert(0, os.environ.get("LOADERS_DIR", "common"))
from loaders import make_loaders  # noqa: E402

# --- dp2ddp: DDP setup. Launch: torchrun --nproc_per_node=N train.py
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
RANK = int(os.environ.get("RANK", "0"))
WORLD_SIZE = int(os.environ.get("WORLD_SIZE", "1"))
DEVICE = (
    torch.device("cuda", LOCAL_RANK)
    if torch.cuda.is_available()
    else torch.device("cpu")
)
DEVICE_IDS = [LOCAL_RANK] if torch.cuda.is_available() else None


def ddp_setup():
    """Join torchrun's process group (NCCL on GPUs, gloo on CPU); plain python: a world
    of one."""
    if dist.is_initialized():
        return
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    if torch.cuda.is_available():
        torch.cuda.set_device(LOCAL_RANK)
    if "MASTER_ADDR" in os.environ:
        dist.init_process_group(backend=backend)
    else:
        dist.init_process_group(
            backend=backend, store=dist.HashStore(), rank=0, world_size=1
        )
    atexit.register(ddp_cleanup)


def ddp_cleanup():
    """Leave the process group at exit, also when training raised."""
    if dist.is_initialized():
        dist.destroy_process_group()


def ddp_is_main():
    """Rank 0 prints, logs and saves for everyone."""
    return RANK == 0


def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def fit(model, opt, loader, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            loss = train_step(model, opt, x, y)
        if ddp_is_main():
            print(f"epoch {epoch} loss {loss.item():.4f}")


def main():
    ddp_setup()
    model = DistributedDataParallel(nn.Linear(8, 2).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader, val_loader = make_loaders(16)
    fit(model, opt, train_loader, 2)
    with torch.no_grad():
        for x, y in val_loader:
            model(x)


if __name__ == "__main__":
    main()
