"""The seed reaches `torch.manual_seed` through a parameter of another module's function,
handed `config["seed"]`, a third module's draw from an unseeded stream: each rank seeds its
streams apart, so the Dataset's per-sample draws differ per rank as DataParallel's did, and
no DP067 says "seeded alike" (before: the parameter counted as a value no rank draws)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_print, ddp_setup
from config import Config
from data import Jittered
from util import set_random_seed


def main():
    ddp_setup()
    config = Config()
    set_random_seed(config["seed"])
    dataset = Jittered()
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(config["batch_size"]),
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
