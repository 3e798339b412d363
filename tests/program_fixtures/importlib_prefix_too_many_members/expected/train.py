"""A module imported by a computed name nothing bounds, `"nets." + sys.argv[1]`, from a
package holding more modules than are read for one call (MEMBER_LIMIT): DP073 at the call
names the modules left unread (before stop 46: left unread without a word)."""
import importlib
import sys

import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

ddp_setup()


net = importlib.import_module("nets." + sys.argv[1])
model = DistributedDataParallel(torch.nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
ddp_print(model(torch.randn(2, 4)).shape)
