"""An evaluation that trains a fresh linear read-out on the frozen features."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import ddp_per_rank_batch, ddp_sync_module

FEATURES = torch.randn(24, 6, generator=torch.Generator().manual_seed(5))
LABELS = (FEATURES[:, 0] > 0).long()


def read_out_accuracy(encoder, epochs=3):
    dataset = TensorDataset(FEATURES, LABELS)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DistributedSampler(dataset, shuffle=True),
    )
    head = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(head.parameters(), lr=0.5)
    ddp_sync_module(head)
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            with torch.no_grad():
                z = encoder(x)
            optimizer.zero_grad()
            nn.functional.cross_entropy(head(z), y).backward()
            optimizer.step()
    with torch.no_grad():
        hits = (head(encoder(FEATURES)).argmax(1) == LABELS).float().mean().item()
    return hits
