import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_setup
from utils import load_ckpt

ddp_setup()


net = nn.Linear(2, 2)
model = DistributedDataParallel(net.to(DEVICE), device_ids=DEVICE_IDS)
load_ckpt(net, "a.pth")
