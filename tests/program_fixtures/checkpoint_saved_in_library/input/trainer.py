import torch
import torch.nn.functional as F


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
        torch.save(self.model.module.state_dict(), path)
