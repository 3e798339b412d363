"""Train the network of evaluate.py (star import, as many repositories write it)."""

import torch
from torch.utils.data import DataLoader

from evaluate import *

# isort: split
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_print, ddp_setup

ddp_setup()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    train_dataset = make_set(256, 1)
    train_loader = DataLoader(
        train_dataset,
        batch_size=ddp_per_rank_batch(32),
        sampler=DistributedSampler(train_dataset, shuffle=True),
    )
    # dp2ddp: DP015 evaluation metrics not reduced
    val_loader = DataLoader(make_set(96, 2), batch_size=32)
    for epoch in range(3):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        score = accuracy(model, val_loader)
        ddp_print(f"epoch {epoch}: loss {loss.item():.4f} val accuracy {score:.3f}")
    ddp_print(f"final val accuracy {score:.3f}")
