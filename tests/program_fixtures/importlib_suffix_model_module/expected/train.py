"""Stop 45's v2-D (junyanz/BicycleGAN@40b9d52): the model module is imported by a computed
name, `"models." + opt.model + "_model"`, and wraps nothing itself (networks.py does). Its
`is_train()` compares the batch with the option the DataLoader takes its batch_size from:
each rank's batch is half of it, so every batch was skipped, and the module was not part of
the program (only the package's modules that wrap or build a loader were): no DP061."""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import ddp_per_rank_batch, ddp_print, ddp_same_random, ddp_setup
from models import create_model

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=4)
parser.add_argument("--model", default="pair")
opt = parser.parse_args()
with ddp_same_random():
    dataset = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(opt.batch_size),
    sampler=DistributedSampler(dataset, shuffle=True),
)
model = create_model(opt)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for batch in loader:
        model.set_input(batch)
        if not model.is_train():
            ddp_print("skip this batch")
            continue
        model.optimize()
