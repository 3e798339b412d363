import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from pkg._dp2ddp import DEVICE, DEVICE_IDS, ddp_setup

from .ckpt import save_checkpoint


def main():
    ddp_setup()
    model = nn.Linear(4, 2)
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        loss = model(torch.ones(4, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        save_checkpoint(epoch, model.module, optimizer)


if __name__ == "__main__":
    main()
