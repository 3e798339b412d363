"""A trainer base class that wraps the networks it is built with and makes their
optimizers; subclasses in other modules run the steps."""
import torch
import torch.nn as nn


class PairTrainer:
    def __init__(self, net_a, net_b, lr):
        self.first = nn.DataParallel(net_a)
        self.second = nn.DataParallel(net_b)
        self.opt_first = torch.optim.SGD(self.first.parameters(), lr=lr)
        self.opt_second = torch.optim.SGD(self.second.parameters(), lr=lr)
