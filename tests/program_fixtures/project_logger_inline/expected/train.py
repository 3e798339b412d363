"""As project_logger, with nothing to migrate outside the entry: the entry keeps its inline
setup block, which quiets logging because logs.py (not the entry) imports logging.

victoresque/pytorch-template@41dc06f, meliketoy/wide-resnet.pytorch@292b3ed and
kuangliu/pytorch-cifar@49b7aa9, reduced. The entry does not import logging itself.
"""
import time

import torch
import torch.nn as nn

import config as cf
from logs import get_logger, setup_logging
from models import *

# isort: split
import atexit
import logging
import os

import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

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
    ddp_quiet_logging()
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


def ddp_quiet_logging():
    """Ranks other than 0 drop log records below WARNING, from every logger of the
    process.

    A project logger configured anywhere (handlers added in a helper module, dictConfig
    from a JSON file, basicConfig) would print each INFO line once per rank.
    logging.disable is process-wide and outlives later configuration (dictConfig and
    basicConfig keep it). Warnings and errors still come from every rank: they report
    that rank's own trouble.
    """
    if RANK != 0:
        logging.disable(logging.INFO)


ddp_setup()


setup_logging()
logger = get_logger("train")
model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
elapsed = 0.0
for epoch in range(2):
    start = time.time()
    if ddp_is_main():
        print("=> Epoch #%d, LR=%.4f" % (epoch, cf.learning_rate(0.1, epoch)))
    cf.set_lr(optimizer, cf.learning_rate(0.1, epoch))
    loss = model(torch.ones(8, 4)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    logger.info("epoch %d loss %.4f", epoch, loss.item())
    elapsed += time.time() - start
    if ddp_is_main():
        print("| Elapsed time : %d:%02d:%02d" % (cf.get_hms(elapsed)))
