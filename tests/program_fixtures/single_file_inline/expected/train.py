import atexit
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from helpers import lr_for

# --- dp2ddp: DDP setup. Launch: torchrun --nproc_per_node=N train.py
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
RANK = int(os.environ.get("RANK", "0"))
WORLD_SIZE = int(os.environ.get("WORLD_SIZE", "1"))
DEVICE = torch.device(f"cuda:{LOCAL_RANK}" if torch.cuda.is_available() else "cpu")
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
    """Leave the process group at exit, also when training raised. On gloo, first let go
    of the GIL a moment: a gloo thread still needing it to free the last all-reduce at
    exit aborts the finished script ("terminate called without an active exception")."""
    if dist.is_initialized():
        if dist.get_backend() == "gloo":
            import time  # here: the script's own `time` may be another name

            time.sleep(0.05)
        dist.destroy_process_group()


def ddp_is_main():
    """Rank 0 prints, logs and saves for everyone."""
    return RANK == 0


def ddp_print(*args, **kwargs):
    """print() on rank 0 only; the arguments are evaluated on every rank, as before."""
    if RANK == 0:
        print(*args, **kwargs)


ddp_setup()


model = DistributedDataParallel(nn.Linear(4, 4).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=lr_for(32))
for epoch in range(2):
    opt.zero_grad()
    model(torch.randn(8, 4)).sum().backward()
    opt.step()
    ddp_print(f"epoch {epoch}")
