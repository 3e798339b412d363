import argparse

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from lightlib import DictAction


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-args", action=DictAction, default={})
    parser.parse_args([])
    torch.manual_seed(0)
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(DEVICE),
        device_ids=DEVICE_IDS,
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with ddp_same_random():
        data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 2))
    loader = torch.utils.data.DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    ddp_print("weights", round(sum(p.sum().item() for p in model.parameters()), 4))


if __name__ == "__main__":
    main()
