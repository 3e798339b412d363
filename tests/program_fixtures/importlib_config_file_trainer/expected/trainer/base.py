import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print


class BaseTrainer:
    def __init__(self, model, loader):
        self.model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
        self.loader = loader
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def train(self):
        seen = []
        for x, y in self.loader:
            seen += x.view(-1).int().tolist()
            loss = ((self.model(x) - y) ** 2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        ddp_print("seen", sorted(seen), "weight %.6f" % self.model.module.weight.item())
