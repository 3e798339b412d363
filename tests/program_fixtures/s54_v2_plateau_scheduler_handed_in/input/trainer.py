import torch.nn as nn
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler, train_data, gpus=()):
        self.model = model
        if len(gpus) > 0:
            self.model = nn.DataParallel(self.model, device_ids=gpus)
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
                self.lr_scheduler.step(total)
            print("epoch", epoch, "lr", self.optimizer.param_groups[0]["lr"])
