import os

import torch


class Trainer:
    def __init__(self, model, criterion, out):
        self.model = model
        self.criterion = criterion
        self.out = out
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.log = open(os.path.join(out, "train.log"), "a")

    def train(self, loader, epoch):
        print("=> training epoch # {}".format(epoch))
        for x, y in loader:
            loss = self.criterion(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        self.log.write("epoch %d\n" % epoch)
        torch.save(self.model.state_dict(), os.path.join(self.out, "model.pth"))


def createTrainer(model, criterion, out):
    return Trainer(model, criterion, out)
