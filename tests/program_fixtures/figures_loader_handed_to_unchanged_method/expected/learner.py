import torch.nn as nn

from _dp2ddp import ddp_all_reduce_sum


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
        total = ddp_all_reduce_sum(total)
        return total / len(train_loader.dataset)
