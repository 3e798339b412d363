"""One loop method for training and validation; the validation loss it returns names the
best checkpoint, which the entry loads after training (round 33, luokn/ms-gat@f5c1b7f: each
rank named the file by its own half's loss, rank 0 saved under its name and rank 1 loaded
one never written: FileNotFoundError). The loop's running sum of per-batch means is
averaged over the ranks where it is read: the batches' means, the original's name."""
import os

import torch
import torch.nn as nn


class Runner:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        self.best = {"loss": float("inf"), "path": ""}

    def pass_over(self, data, mode):
        self.model.train(mode == "train")
        total = 0.0
        with torch.set_grad_enabled(mode == "train"):
            for step, (x, y) in enumerate(data):
                loss = nn.functional.mse_loss(self.model(x), y)
                if mode == "train":
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
                total += loss.item()
        return total / (step + 1)

    def fit(self, loaders, epochs):
        os.makedirs("best", exist_ok=True)
        for epoch in range(epochs):
            self.pass_over(loaders[0], "train")
            loss = self.pass_over(loaders[1], "valid")
            if loss < self.best["loss"]:
                self.best = {"loss": loss, "path": f"best/{epoch}_{loss:.4f}.pt"}
                torch.save(self.model.state_dict(), self.best["path"])
