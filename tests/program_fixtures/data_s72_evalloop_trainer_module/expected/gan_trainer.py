import torch
import torch.nn as nn


class Trainer:
    """A plain trainer object: its step runs backward and the optimizer's step."""

    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train_step(self, x, y):
        self.opt.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        self.backprop(loss)
        return loss.detach()

    def backprop(self, loss):
        loss.backward()
        self.opt.step()
