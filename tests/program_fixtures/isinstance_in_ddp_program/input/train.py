"""Already a DDP program: no module wraps with DataParallel, and none has both paths."""

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from utils import unwrap

dist.init_process_group("gloo")
model = DistributedDataParallel(torch.nn.Linear(4, 2))
torch.save(unwrap(model).state_dict(), "model.pt")
