import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS
from utils.misc import import_class

__config__ = {
    "data_provider": "data.provider",
    "network": "models.net.Net",
    "train": {"batchsize": 16, "epochs": 2},
}


def make_network(config):
    net = import_class(config["network"])()
    config["net"] = DistributedDataParallel(net.to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.Adam(config["net"].parameters(), config["opt"].lr)

    def step(batch):
        images, targets = batch
        loss = nn.functional.mse_loss(
            config["net"](images.to(DEVICE)), targets.to(DEVICE)
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()

    return step
