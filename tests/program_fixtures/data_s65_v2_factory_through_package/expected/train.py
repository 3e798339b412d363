import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from lib.data import make_loader


def evaluate(model, loader):
    correct, total = 0, 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    return correct / total


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    train_loader = make_loader(16, 16, mode="train")
    # dp2ddp: DP015 evaluation metrics not reduced
    val_loader = make_loader(12, 4, mode="val", ddp_shard=False)
    for epoch in range(2):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        ddp_print("epoch", epoch, "val acc %.4f" % evaluate(model, val_loader))
    ddp_print("weights %.4f" % model.module.weight.sum().item())


if __name__ == "__main__":
    main()
