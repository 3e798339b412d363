"""Mixup and CutMix drawn by helpers of other modules inside the training loop (the shape
of hongyi-zhang/Fixup@f3fa449 cifar/cifar_train.py with cifar/utils.py)."""
import atexit
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import augment
from utils import make_data, mixup_data, seed_all

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


ddp_setup()


seed_all(0)
data, target = make_data()
model = DistributedDataParallel(nn.Linear(4, 4).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(3):
    seed_all(step)
    mixed, y_a, y_b, lam = mixup_data(data, target, 1.0)
    mixed = augment.cutmix(mixed)
    output = model(mixed)
    loss = lam * (output - y_a).pow(2).mean() + (1 - lam) * (output - y_b).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
