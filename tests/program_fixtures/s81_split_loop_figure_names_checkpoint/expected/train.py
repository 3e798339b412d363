"""The entry: trains, then loads the checkpoint the runner named (runner.py)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_barrier, ddp_print, ddp_setup
from batches import Splits
from runner import Runner

ddp_setup()


torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
runner = Runner(model)
splits = Splits()
runner.fit((splits.train, splits.valid), 3)
ddp_barrier()
model.load_state_dict(torch.load(runner.best["path"], map_location=DEVICE))
ddp_print(
    "best", runner.best["path"], "weights", round(model.module.weight.sum().item(), 6)
)
