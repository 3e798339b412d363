import os

import numpy as np
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
from corpus import build_corpus


def main():
    ddp_setup()
    torch.manual_seed(0)
    cache = "corpus_cache.npy"
    if not os.path.exists(cache):
        build_corpus(cache, 16)
    ddp_barrier()
    corpus = np.load(cache)
    x = torch.from_numpy(corpus).float()
    y = x.sum(1, keepdim=True)
    dataset = TensorDataset(x, y)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    ddp_print(
        "rows %d weights %.4f" % (
            len(corpus), sum(p.sum().item() for p in model.parameters())
        ),
    )


if __name__ == "__main__":
    main()
