"""A learner that owns its two nets and their optimizers and trains itself in a method."""

import torch
import torch.nn as nn


class PairLearner(nn.Module):
    def __init__(self, features, hidden):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(features, hidden), nn.Tanh())
        self.head = nn.Linear(hidden, 1)
        self.encoder_opt = torch.optim.SGD(self.encoder.parameters(), lr=0.05)
        self.head_opt = torch.optim.SGD(self.head.parameters(), lr=0.1)

    def step(self, inputs, targets):
        loss = ((self.head(self.encoder(inputs)) - targets) ** 2).mean()
        self.encoder_opt.zero_grad()
        self.head_opt.zero_grad()
        loss.backward()
        self.encoder_opt.step()
        self.head_opt.step()
        return loss.item()

    def fit(self, loader, epochs):
        last = 0.0
        for _ in range(epochs):
            for inputs, targets in loader:
                last = self.step(inputs, targets)
        return last
