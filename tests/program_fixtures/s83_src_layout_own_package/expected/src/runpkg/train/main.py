# Run as `PYTHONPATH=src python src/runpkg/train/main.py` (or after `pip install -e .`).
import torch
import torch.nn as nn
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from runpkg.logs import open_run


def main():
    ddp_setup()
    torch.manual_seed(0)
    log = open_run("train")
    with ddp_same_random():
        data = TensorDataset(torch.randn(32, 6), torch.randn(32, 1))
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(8),
        sampler=DistributedSampler(data, shuffle=True),
    )
    model = DistributedDataParallel(nn.Linear(6, 1).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for inputs, targets in loader:
            loss = nn.functional.mse_loss(model(inputs), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        log.info("epoch %d done", epoch)
    ddp_print("PARAMSUM", sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
