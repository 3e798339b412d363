import os

import torch

from _dp2ddp import ddp_discard_path, ddp_is_main, ddp_print


class Trainer:
    def __init__(self, model, criterion, out):
        self.model = model
        self.criterion = criterion
        self.out = out
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.log = open(
            os.path.join(out, "train.log") if ddp_is_main() else ddp_discard_path(), "a"
        )

    def train(self, loader, epoch):
        ddp_print("=> training epoch # {}".format(epoch))
        for x, y in loader:
            loss = self.criterion(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        self.log.write("epoch %d\n" % epoch)
        if ddp_is_main():
            torch.save(self.model.state_dict(), os.path.join(self.out, "model.pth"))


def createTrainer(model, criterion, out):
    return Trainer(model, criterion, out)
