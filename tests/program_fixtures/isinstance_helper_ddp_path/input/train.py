"""Has a DDP path of its own beside DataParallel: the program is left as it is."""

import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from utils import unwrap

model = torch.nn.Linear(4, 2)
if "RANK" in os.environ:
    dist.init_process_group("gloo")
    model = DistributedDataParallel(model)
else:
    model = torch.nn.DataParallel(model)
torch.save(unwrap(model).state_dict(), "model.pt")
