"""A checkpoint saved on rank 0 in one module and loaded in another (issue 16, OpenNRE's
example): trainer.py's Trainer.fit() saves through self.save(); the entry's reload after
fit() gets a ddp_barrier() before it (reached by every rank). The resume before fit() reads
an earlier run's file: no barrier. The reload under `if trainer.last_loss < 1e-3:` (this
rank's own loss) is not reached by every rank: DP031. evaluate.py's load_best() sees no call
of a saving function before its load (its caller is in this module) and is left as
written; here it runs after the entry's barrier."""
import argparse
import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from evaluate import load_best
from trainer import Trainer


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    args = parser.parse_args()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(data, shuffle=True, advance_epoch=True),
    )
    net = nn.Linear(4, 2)
    if args.resume and os.path.exists(args.resume):
        net.load_state_dict(torch.load(args.resume, map_location=DEVICE))
    trainer = Trainer(
        DistributedDataParallel(net.to(DEVICE), device_ids=DEVICE_IDS), loader
    )
    trainer.fit("best.pth")
    if trainer.last_loss < 1e-3:
        # dp2ddp: DP031 checkpoint loaded without a barrier every rank reaches
        net.load_state_dict(torch.load("best.pth", map_location=DEVICE))
    ddp_barrier()
    net.load_state_dict(torch.load("best.pth", map_location=DEVICE))
    load_best(net, "best.pth")
    ddp_print("weights", float(net.weight.sum()))


if __name__ == "__main__":
    main()
