import torch

from test import *

# isort: split
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

ddp_setup()


if __name__ == "__main__":
    model = DistributedDataParallel(Net().to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        optimizer.zero_grad()
        model(torch.randn(8, 4)).sum().backward()
        optimizer.step()
    score = evaluate(model, torch.randn(8, 4))
    ddp_print("score", score)
