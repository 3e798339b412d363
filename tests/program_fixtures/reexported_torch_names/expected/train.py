"""Every torch name comes through the project's own package (FastSpeech's `from dataset
import DataLoader`): the loader class, the DataParallel wrap and the checkpoint save."""

import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_all_reduce_sum,
    ddp_eval_sampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_setup,
)
from lib import Loader, make_dataset, tools
from lib.models import Net


def evaluate(model, loader):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += F.mse_loss(model(x), y, reduction="sum").item()
        total = ddp_all_reduce_sum(total)
    return total


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_dataset = make_dataset(64)
    train_loader = Loader(
        train_dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DistributedSampler(train_dataset, shuffle=True),
    )
    test_dataset = make_dataset(32)
    test_loader = Loader(
        test_dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=ddp_eval_sampler(test_dataset),
    )
    for epoch in range(2):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        test = evaluate(model, test_loader)
        if ddp_is_main():
            print(f"epoch {epoch} loss {loss.item():.4f} test {test:.4f}")
            tools.save(model.module.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
