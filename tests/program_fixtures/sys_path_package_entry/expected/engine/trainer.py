import torch
from torch.utils.data import DataLoader, TensorDataset

from tools._dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_print


def fit(model):
    data = TensorDataset(torch.arange(32.0).view(16, 2), torch.arange(16) % 2)
    # dp2ddp: DP011 no epoch loop found for sampler.set_epoch
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(data, shuffle=True, advance_epoch=True),
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    seen = []
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        seen += x[:, 0].tolist()
    ddp_print("done", len(seen))
    return {"train": seen, "weight": model.module.weight.sum().item()}
