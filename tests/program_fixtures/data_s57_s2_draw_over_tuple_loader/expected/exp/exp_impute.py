"""Issue 28, class v2-D of stop 56: a per-sample mask drawn in the training loop, over a
loader that comes back from a method returning another module's factory's `(data_set,
data_loader)` tuple (the Time-Series-Library layout: `_get_data(flag)` wraps
`data_provider(args, flag)`). DataParallel's one process drew the mask once for the global
batch, a distinct row per sample; under torchrun, seeded alike, every rank would draw the
same rows for its own samples. The draw is the global batch's share on each rank
(ddp_draw_share), as for a loader bound here."""

import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, WORLD_SIZE, ddp_draw_share, ddp_print
from data_provider.data_factory import data_provider


class Exp:
    def __init__(self, args):
        self.args = args
        torch.manual_seed(0)
        self.model = DistributedDataParallel(
            nn.Linear(3, 3).to(DEVICE), device_ids=DEVICE_IDS
        )

    def _get_data(self, flag, ddp_shard=True):
        data_set, data_loader = data_provider(self.args, flag, ddp_shard=ddp_shard)
        return data_set, data_loader

    def vali(self, vali_loader, criterion):
        total_loss = []
        with torch.no_grad():
            for i, (batch_x,) in enumerate(vali_loader):
                out = self.model(batch_x)
                total_loss.append(criterion(out, batch_x).item())
        return float(np.average(total_loss))

    def train(self):
        train_data, train_loader = self._get_data(flag="train")
        # dp2ddp: DP015 evaluation metrics not reduced
        vali_data, vali_loader = self._get_data(flag="val", ddp_shard=False)
        optim = torch.optim.SGD(self.model.parameters(), lr=self.args["lr"])
        criterion = nn.MSELoss()
        for epoch in range(self.args["epochs"]):
            train_loader.sampler.set_epoch(epoch)
            for i, (batch_x,) in enumerate(train_loader):
                optim.zero_grad()
                B, T, N = batch_x.shape
                mask = ddp_draw_share(lambda: torch.rand((B * WORLD_SIZE, T, N)))
                if epoch == 0 and i == 0:
                    self.first_mask = mask.clone()
                mask[mask <= self.args["mask_rate"]] = 0
                mask[mask > self.args["mask_rate"]] = 1
                inp = batch_x.masked_fill(mask == 0, 0)
                out = self.model(inp)
                loss = criterion(out * (1 - mask), batch_x * (1 - mask))
                loss.backward()
                optim.step()
            vali_loss = self.vali(vali_loader, criterion)
            ddp_print("epoch {} vali {:.6f}".format(epoch + 1, vali_loss))
        return self.model
