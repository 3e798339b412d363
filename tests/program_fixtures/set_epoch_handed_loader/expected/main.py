"""Two shuffled training loaders iterated only in trainer.py (DP011 across modules):
- `loader_a` is handed to train_epoch() in this module's epoch loop: each call is one pass,
  so set_epoch(epoch) goes in that loop here (before: DP011 "no loop over loader_a found"
  and a sampler advancing its own epoch);
- `loader_b` is handed to fit(), whose own epoch loop passes over it twice per call: no
  loop here numbers its passes, DP011 says where the loop is (before: "no loop over
  loader_b found", untrue) and its sampler advances its epoch on each pass.
E2E_DIGEST: the sample ids each rank trained on, per pass (each epoch a new order, the ranks'
parts disjoint)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_setup,
)
from trainer import fit, train_epoch


def main():
    ddp_setup()
    torch.manual_seed(0)
    ds = TensorDataset(torch.arange(16).float().unsqueeze(1), torch.arange(16).float())
    loader_a = DataLoader(
        ds,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(ds, shuffle=True),
    )
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    loader_b = DataLoader(
        ds,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(ds, shuffle=True, advance_epoch=True),
    )
    model = DistributedDataParallel(nn.Linear(1, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.001)
    seen = []
    for epoch in range(2):
        loader_a.sampler.set_epoch(epoch)
        train_epoch(model, loader_a, opt, seen)
    fit(model, loader_b, opt, 2, seen)
    return seen


if __name__ == "__main__":
    E2E_DIGEST = main()
