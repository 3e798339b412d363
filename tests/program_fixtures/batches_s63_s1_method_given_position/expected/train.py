import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup, ddp_shard_batch
from data import Batches, Device


def main():
    ddp_setup()
    torch.manual_seed(0)
    data = Batches(32, 8)
    device = Device("cpu")
    model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i in range(4):
        x, y = data.get(i)
        x, y = ddp_shard_batch((x, y))
        x = device.data_to_device(x)
        loss = nn.functional.mse_loss(model(x), device.data_to_device(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        ddp_print("rows", x.shape[0])
    ddp_print("weights", round(model.module.weight.sum().item(), 4))


if __name__ == "__main__":
    main()
