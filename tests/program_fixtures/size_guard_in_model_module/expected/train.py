import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import ddp_per_rank_batch, ddp_print, ddp_same_random, ddp_setup
from model import Trainer

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=4)
opt = parser.parse_args()
with ddp_same_random():
    dataset = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(opt.batch_size),
    sampler=DistributedSampler(dataset, shuffle=True),
)
trainer = Trainer(opt)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for batch in loader:
        trainer.set_input(batch)
        if not trainer.is_train():
            ddp_print("skip this batch")
            continue
        trainer.optimize()
