import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS

# dp2ddp: DP024 DataParallel wrap at import time of a library module
MODEL = DistributedDataParallel(nn.Linear(2, 1).to(DEVICE), device_ids=DEVICE_IDS)
