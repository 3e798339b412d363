"""Entry: wraps the model in DataParallel and hands it, with a batch iterator of the
program's own making (no DataLoader) and a list of loss objects, to the Trainer."""
import sys

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from batching import BucketBatches
from trainer import AccLoss, PerSampleLoss, Trainer

ddp_setup()


torch.manual_seed(0)
X = torch.randn(32, 8)
Y = (X[:, 0] > 0).long()
model = DistributedDataParallel(nn.Linear(8, 2).to(DEVICE), device_ids=DEVICE_IDS)
losses = [PerSampleLoss() if "vec" in sys.argv else AccLoss()]
Trainer(model, losses).train(BucketBatches(X, Y, 8), 2)
ddp_print(
    "final weight[0] %s" % [
        round(v, 4) for v in model.module.weight.detach()[0].tolist()
    ],
)
