import torch.nn as nn


class Trainer:
    def __init__(self, model, opt, loaders):
        self.model = model
        self.opt = opt
        self.loaders = loaders

    def train_epoch(self):
        total, count = 0.0, 0
        for x, y in self.loaders["train"]:
            loss = nn.functional.mse_loss(self.model(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            total += loss.item() * x.size(0)
            count += x.size(0)
        print("train loss %.4f over %d samples" % (total / count, count))
