import torch
from torch import nn
from torch.nn import DataParallel

from utils.misc import import_class

__config__ = {
    "data_provider": "data.provider",
    "network": "models.net.Net",
    "train": {"batchsize": 16, "epochs": 2},
}


def make_network(config):
    net = import_class(config["network"])()
    config["net"] = DataParallel(net.cuda())
    optimizer = torch.optim.Adam(config["net"].parameters(), config["opt"].lr)

    def step(batch):
        images, targets = batch
        loss = nn.functional.mse_loss(config["net"](images.cuda()), targets.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()

    return step
