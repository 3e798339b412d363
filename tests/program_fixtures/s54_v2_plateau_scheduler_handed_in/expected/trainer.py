from torch.nn.parallel import DistributedDataParallel
from torch.optim.lr_scheduler import ReduceLROnPlateau

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler, train_data, gpus=()):
        self.model = model
        self.model = DistributedDataParallel(
            self.model.to(DEVICE), device_ids=DEVICE_IDS
        )
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.train_data = train_data

    def train(self, epochs):
        for epoch in range(epochs):
            total = 0.0
            for x, y in self.train_data:
                loss = (self.model(x) - y).pow(2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                total += loss.item()
            if isinstance(self.lr_scheduler, ReduceLROnPlateau):
                # dp2ddp: DP090
                self.lr_scheduler.step(total)
            ddp_print("epoch", epoch, "lr", self.optimizer.param_groups[0]["lr"])
