"""Trainer module (no DataParallel wrap here, the model is handed in): a list of loss
OBJECTS, each holding its batch loss and owning .backward(), is walked in the step."""
import torch
import torch.nn.functional as F


class AccLoss:
    def __init__(self):
        self.acc_loss = 0
        self.norm_term = 0

    def eval_batch(self, out, target):
        self.acc_loss = F.cross_entropy(out, target, reduction="sum")
        self.norm_term = target.numel()

    def scale_loss(self, factor):
        self.acc_loss = self.acc_loss * factor / self.norm_term

    def backward(self):
        self.acc_loss.backward()


class PerSampleLoss(AccLoss):
    def eval_batch(self, out, target):
        self.acc_loss = F.cross_entropy(out, target, reduction="none")
        self.norm_term = target.numel()

    def scale_loss(self, factor):
        self.acc_loss = self.acc_loss * factor

    def backward(self):
        self.acc_loss.mean().backward()


class Trainer:
    def __init__(self, model, losses):
        self.model, self.losses = model, losses
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

    def _train_batch(self, x, y):
        out = self.model(x)
        for loss in self.losses:
            loss.eval_batch(out, y)
        for i, loss in enumerate(self.losses):
            loss.scale_loss(1.0)
            loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()

    def train(self, data, epochs):
        for epoch in range(epochs):
            for batch in data:
                x, y = batch
                self._train_batch(x, y)
