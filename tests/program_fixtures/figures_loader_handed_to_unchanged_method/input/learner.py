import torch.nn as nn


class Learner:
    def __init__(self, model):
        self.model = model

    def train_one_epoch(self, train_loader, opt):
        total = 0.0
        for x, y in train_loader:
            loss = nn.functional.mse_loss(self.model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * x.size(0)
        return total / len(train_loader.dataset)
