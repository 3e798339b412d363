"""nn.ParameterLists grown after they are built, then handed to the optimizer: a head of
another module grown by its own method and by this module (`head.shift.append(...)`), one
of this module's (`twin.gain.extend([...])`). DataParallel trained one copy of each tensor
on the whole batch; under DDP each is synced (rank 0's values, the gradient averaged)."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_setup,
    ddp_sync_tensor,
)
from heads import Head


class Twin:
    def __init__(self):
        self.gain = nn.ParameterList([nn.Parameter(torch.ones(1))])


def main():
    ddp_setup()
    torch.manual_seed(0)
    x = torch.randn(64, 8)
    y = x[:, :2].sum(dim=1, keepdim=True) + 0.3
    dataset = TensorDataset(x, y)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(16),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(8, 1).to(DEVICE), device_ids=DEVICE_IDS)
    head = Head()
    head.grow()
    head.shift.append(nn.Parameter(torch.ones(1)))
    twin = Twin()
    twin.gain.extend([nn.Parameter(torch.full((1,), 2.0))])
    optimizer = torch.optim.SGD(
        [
            {"params": model.parameters()},
            {"params": head.shift},
            {"params": twin.gain, "lr": 0.05},
        ],
        lr=0.1,
    )
    list(map(ddp_sync_tensor, head.shift))
    list(map(ddp_sync_tensor, twin.gain))
    for epoch in range(3):
        for inputs, target in loader:
            offset = head.shift[0] + head.shift[1] * head.shift[2]
            out = model(inputs) * twin.gain[0] + offset + twin.gain[1] * inputs[:, 2:3]
            loss = ((out - target) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    if ddp_is_main():
        print("shift", " ".join(f"{p.item():.4f}" for p in head.shift))
        print("gain", " ".join(f"{p.item():.4f}" for p in twin.gain))


if __name__ == "__main__":
    main()
