import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_sync_module
from smoothing import Blending, Smoothing


class Trainer:
    """Embeds a batch through the wrapped encoder, then smooths the gathered rows."""

    def __init__(self, encoder, classes, config):
        self.encoder = encoder
        self.config = config
        self.smoothing = Smoothing()
        self.blending = Blending()
        self.head = nn.Linear(4, classes)
        params = list(self.encoder.parameters()) + list(self.head.parameters())
        ddp_sync_module(self.head)
        self.optimizer = torch.optim.SGD(params, lr=0.1)
        self.parallel_encoder = DistributedDataParallel(
            self.encoder.to(DEVICE), device_ids=DEVICE_IDS
        )

    def step(self, x, y):
        if self.config["ngpu"] > 1:
            rows = self.parallel_encoder(x)
        else:
            rows = self.encoder(x)
        if self.config["smooth"]:
            rows = self.smoothing(rows)
        rows = self.blending(rows)
        loss = F.cross_entropy(self.head(rows), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()
