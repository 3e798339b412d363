"""The trainer module: train() saves the model to 'm-' + its stamp argument (through a
local path made from it); Evaluator.evaluate() loads the path it is handed."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
)


def train(stamp, epochs):
    torch.manual_seed(0)
    x = torch.randn(16, 6)
    dataset = TensorDataset(x, x.sum(1, keepdim=True))
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(6, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(epochs):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        name = "m-" + stamp + ".pth.tar"
        if ddp_is_main():
            torch.save({"state_dict": model.state_dict()}, name)
        ddp_barrier()


class Evaluator:
    def evaluate(self, path):
        model = DistributedDataParallel(
            nn.Linear(6, 1).to(DEVICE), device_ids=DEVICE_IDS
        )
        model.load_state_dict(torch.load(path, map_location=DEVICE)["state_dict"])
        ddp_print("weights %.6f" % model.module.weight.sum().item())
