import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from pairs import Pairs


def main():
    ddp_setup()
    torch.manual_seed(0)
    dataset = Pairs(16)
    data_loader = dataset.get_loader(8, True)
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    epoch = 0
    while epoch < 2:
        epoch += 1
        for x, y in data_loader:
            loss = (model(x) - y).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        ddp_print(f"epoch {epoch} weight {model.module.weight.sum().item():.6f}")


if __name__ == "__main__":
    main()
