"""A checkpoint named by each rank's clock, saved (on rank 0 once migrated) and loaded by
another module through an attribute (PatrickHua/SimSiam@75a7c51): the name is rank 0's on
every rank, and every rank waits for the save before the other module loads it. Module
`main` and both modules' `main()` are three things (a call of linear_eval's main() is no
call of this one)."""

import argparse
from datetime import datetime

import torch
import torch.nn as nn
from linear_eval import main as linear_eval
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_rank0_value,
    ddp_same_random,
    ddp_setup,
)


def main(args):
    ddp_setup()
    with ddp_same_random():
        dataset = TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    model_path = f"ckpt_{ddp_rank0_value(datetime.now).strftime('%H%M%S%f')}.pth"
    if ddp_is_main():
        torch.save(model.module.state_dict(), model_path)
    ddp_barrier()
    if args.eval is not False:
        args.eval_from = model_path
        linear_eval(args)


if __name__ == "__main__":
    ddp_setup()
    main(argparse.Namespace(eval=True, eval_from=None))
