"""A subclass of the base agent in another module: its `self.log(...)` lines go through the
alias agents/default.py binds (one of them with an argument that ticks the timer, which
every rank needs: the tick count scales the weights)."""
import torch

from .default import NormalNN


class L2(NormalNN):
    def __init__(self, config):
        super().__init__(config)
        self.tasks = 0

    def learn_batch(self, loader):
        self.log("#reg_term:", self.tasks)
        for epoch in range(self.config["epochs"]):
            self.log("Epoch:{0}".format(epoch))
            for x, y in loader:
                self.step(x, y)
        self.log(" * Done, tick {:.0f}".format(self.timer.toc()))
        with torch.no_grad():
            for p in self.model.parameters():
                p.mul_(1.0 - 0.01 * self.timer.ticks)
        self.tasks += 1
