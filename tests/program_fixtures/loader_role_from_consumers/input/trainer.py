"""The trainer of class v1-F: the loaders arrive through the constructor; train() trains on
one, _valid_epoch() scores the other under no_grad() into a dict of answers, and the best
epoch is chosen by that score. evaluate() scores a loader it is handed the same way."""

import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, train_data_loader, dev_data_loader, epochs):
        self.model = model
        self.optimizer = optimizer
        self.train_data_loader = train_data_loader
        self.dev_data_loader = dev_data_loader
        self.epochs = epochs

    def train(self):
        best = -1.0
        for epoch in range(self.epochs):
            for x, y, _ in self.train_data_loader:
                loss = F.cross_entropy(self.model(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            score = self._valid_epoch(self.dev_data_loader)
            best = max(best, score)
            print("epoch %d dev accuracy %.2f best %.2f" % (epoch, score, best))

    def _valid_epoch(self, data_loader):
        answers = {}
        with torch.no_grad():
            for x, y, ids in data_loader:
                pred = self.model(x).argmax(1)
                answers.update({int(i): int(p == t) for i, p, t in zip(ids, pred, y)})
        return 100.0 * sum(answers.values()) / len(answers)


@torch.no_grad()
def evaluate(model, loader):
    right = seen = 0
    for x, y, _ in loader:
        right += int((model(x).argmax(1) == y).sum())
        seen += len(y)
    return 100.0 * right / seen
