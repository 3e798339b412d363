import argparse

import torch
from sync_batchnorm import DataParallelWithCallback
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from utils import bare


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--sync_bn", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DistributedSampler(data, shuffle=True),
    )
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    if args.sync_bn:
        model = DataParallelWithCallback(model)
    # dp2ddp: DP012 DataParallel wrap kept under a condition
    else:
        model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        ddp_print("epoch", epoch, loss.item())
    if ddp_is_main():
        torch.save(bare(model).state_dict(), "model.pt")


if __name__ == "__main__":
    main()
