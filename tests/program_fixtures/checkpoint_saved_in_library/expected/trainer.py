import torch
import torch.nn.functional as F

from _dp2ddp import ddp_is_main


class Trainer:
    """Trains and keeps the best checkpoint (on rank 0 once migrated)."""

    def __init__(self, model, loader, lr=0.1):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.last_loss = 0.0

    def fit(self, path, epochs=2):
        best = float("inf")
        for epoch in range(epochs):
            for x, y in self.loader:
                loss = F.cross_entropy(self.model(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.last_loss = loss.item()
            if epoch == epochs - 1 or self.last_loss < best:
                best = min(best, self.last_loss)
                self.save(path)

    def save(self, path):
        if ddp_is_main():
            torch.save(self.model.module.state_dict(), path)
