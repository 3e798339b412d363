import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import utils
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup


def main():
    ddp_setup()
    device = utils.GpuDataParallel()
    device.set_device(None)
    model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.arange(32, dtype=torch.float32).view(8, 4) / 32
    for step in range(2):
        x = device.data_to_device(data)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ddp_print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
