"""A Trainer keeping its epoch loss in a library's meter (vpromise/2d-pose-pytorch's
torchnet AverageValueMeter): fed in one method, printed and stepping a plateau scheduler
handed in, in another. The model is wrapped here, as there."""

import torch.nn as nn
from torch.optim.lr_scheduler import ReduceLROnPlateau
from torchnet import meter


class Trainer(object):
    def __init__(self, model, loader, optimizer, criterion, scheduler):
        self.model = nn.DataParallel(model)
        self.train_data = loader
        self.optimizer = optimizer
        self.criterion = criterion
        self.lr_scheduler = scheduler
        self.loss_meter = meter.AverageValueMeter()

    def train(self, epochs):
        for epoch in range(epochs):
            self.loss_meter.reset()
            self._train_one_epoch()
            print("epoch %d loss %.4f" % (epoch, self.loss_meter.value()[0]))
            if isinstance(self.lr_scheduler, ReduceLROnPlateau):
                self.lr_scheduler.step(self.loss_meter.value()[0])

    def _train_one_epoch(self):
        for step, (data, label) in enumerate(self.train_data):
            loss = self.criterion(self.model(data), label)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.loss_meter.add(loss.item())
