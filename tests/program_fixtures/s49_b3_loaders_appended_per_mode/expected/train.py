import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import data
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_same_random, ddp_setup


def validate(loader, model):
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            total += nn.functional.mse_loss(model(x), y, reduction="sum").item()
            count += x.size(0)
    return total / count


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    sizes = {"train": 4, "val": 8, "test": 8}
    with ddp_same_random():
        train_loader, val_loader, test_loader = data.get_loaders(
            sizes, ["train", "val", "test"]
        )
    for epoch in range(3):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        val = validate(val_loader, model)
        for group in optimizer.param_groups:  # the next epoch's step follows the validation
            group["lr"] = 0.05 * val
        ddp_print(
            "epoch %d val %.4f test %.4f" % (epoch, val, validate(test_loader, model))
        )


if __name__ == "__main__":
    main()
