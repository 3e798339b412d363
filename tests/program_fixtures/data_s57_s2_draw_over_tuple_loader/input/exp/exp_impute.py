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

from data_provider.data_factory import data_provider


class Exp:
    def __init__(self, args):
        self.args = args
        torch.manual_seed(0)
        self.model = nn.DataParallel(nn.Linear(3, 3))

    def _get_data(self, flag):
        data_set, data_loader = data_provider(self.args, flag)
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
        vali_data, vali_loader = self._get_data(flag="val")
        optim = torch.optim.SGD(self.model.parameters(), lr=self.args["lr"])
        criterion = nn.MSELoss()
        for epoch in range(self.args["epochs"]):
            for i, (batch_x,) in enumerate(train_loader):
                optim.zero_grad()
                B, T, N = batch_x.shape
                mask = torch.rand((B, T, N))
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
            print("epoch {} vali {:.6f}".format(epoch + 1, vali_loss))
        return self.model
