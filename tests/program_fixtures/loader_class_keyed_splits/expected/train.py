"""A loader class keeping its train and val loaders in dicts keyed by split name
(`self.iters["train"] = iter(self.loaders["train"])`), its get_batch(split) taking the batch
by `next(self.iters[split])`. The def-use view did not read a store into `self.iters[...]`
as what `self.iters` holds, so the batch proof found no loader behind
`batches.get_batch("train")` and split the (already sharded) batch again at the model call:
each rank trained on a quarter of the global batch, no warning. The validation loader,
only evaluated, stays whole (DP015): every rank prints the original's loss."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)

ddp_setup()


def rows(n, offset):
    x = torch.linspace(-1, 1, n * 3).reshape(n, 3) + offset
    return TensorDataset(x, x.sum(1, keepdim=True))


class Batches:
    def __init__(self, batch_size):
        self.loaders, self.iters = {}, {}
        data = rows(8, 0.0)
        # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
        self.loaders["train"] = DataLoader(
            data,
            batch_size=ddp_per_rank_batch(batch_size),
            sampler=DdpDistributedSampler(data, shuffle=True, advance_epoch=True),
        )
        self.iters["train"] = iter(self.loaders["train"])
        data = rows(4, 0.5)
        # dp2ddp: DP015 evaluation metrics not reduced
        self.loaders["val"] = DataLoader(data, batch_size=batch_size)
        self.iters["val"] = iter(self.loaders["val"])

    def get_batch(self, split):
        try:
            return next(self.iters[split])
        except StopIteration:
            self.iters[split] = iter(self.loaders[split])
            return next(self.iters[split])


def evaluate(model, batches):
    model.eval()
    with torch.no_grad():
        x, y = batches.get_batch("val")
        loss = (model(x) - y).pow(2).sum().item()
    model.train()
    return loss


torch.manual_seed(0)
batches = Batches(8)
model = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(3):
    x, y = batches.get_batch("train")
    loss = (model(x) - y).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    ddp_print(f"step {step} val {evaluate(model, batches):.4f}")
E2E_DIGEST = [round(p.sum().item(), 4) for p in model.module.parameters()]
