"""The control of s59_s2_seed_drawn_handed_across_modules: another module's function seeds
torch's generator with its parameter, handed a constant here: every rank seeds it alike, so
DP067 stays (the Dataset's per-sample draws alike on every rank)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_print, ddp_setup
from data import Jittered
from util import set_random_seed


def main():
    ddp_setup()
    set_random_seed(7)
    dataset = Jittered()
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(dataset, shuffle=True),
    )
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    ddp_print("trained")


if __name__ == "__main__":
    main()
