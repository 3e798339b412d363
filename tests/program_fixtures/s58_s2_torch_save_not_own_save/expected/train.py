"""A module-level store into torch (`torch.backends.cudnn.benchmark = False`) does not rebind
`torch`: `torch.save(...)` below is torch's, not a call of the program's own `Params.save`,
which nothing calls (EifelTing/Generous-Teacher@b78440d, stop 57 v3-D: DP054 said the
params file Params.save writes on rank 0 is read by every rank at Params.__init__)."""
import json
import os

import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_all_reduce_mean,
    ddp_barrier,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_setup,
)
from utils.params import Params

torch.backends.cudnn.benchmark = False


def main():
    ddp_setup()
    os.makedirs("exp", exist_ok=True)
    if ddp_is_main():
        with open("exp/params.json", "w") as f:
            json.dump({"lr": 0.1, "epochs": 2}, f)
    ddp_barrier()
    params = Params("exp/params.json")
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(data, shuffle=True),
    )
    model = DistributedDataParallel(
        torch.nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS
    )
    opt = torch.optim.SGD(model.parameters(), lr=params.lr)
    best = None
    for epoch in range(params.epochs):
        loader.sampler.set_epoch(epoch)
        total = 0.0
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        total = ddp_all_reduce_mean(total)
        if best is None or total < best:
            best = total
            if ddp_is_main():
                torch.save({"state": model.state_dict()}, "exp/best.tar")


if __name__ == "__main__":
    main()
