"""The validation metrics printed through a static method of a project class
(VainF/DeepLabV3Plus-Pytorch's `print(metrics.to_str(val_score))`): it only builds a string,
so the print goes to rank 0. `metrics.update(...)` changes the metrics: a print of it stays
on every rank."""
import atexit
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from metrics import StreamSegMetrics

# --- dp2ddp: DDP setup. Launch: torchrun --nproc_per_node=N main.py
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


def main():
    ddp_setup()
    model = DistributedDataParallel(nn.Linear(4, 3).to(DEVICE), device_ids=DEVICE_IDS)
    metrics = StreamSegMetrics(3)
    with torch.no_grad():
        preds = model(torch.ones(2, 4)).argmax(1).numpy()
    print("pixels", metrics.update([np.array([0, 1])], [preds]))
    val_score = metrics.get_results()
    if ddp_is_main():
        print(metrics.to_str(val_score))


if __name__ == "__main__":
    main()
