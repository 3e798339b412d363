import numpy as np
import torch
from torch.utils.data import DataLoader


class Tracker:
    def __init__(self):
        self.timeline = []

    def update(self, values):
        self.timeline.append(values)


class Trainer:
    def __init__(self, model, dataset, batch_size):
        self.model = model
        self.loader = DataLoader(dataset, batch_size=batch_size, shuffle=False)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self._tracker = Tracker()

    def _train_step(self, batch):
        x, y = batch
        loss = ((self.model(x) - y) ** 2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss

    def _train(self):
        stats = {stat: [] for stat in ["tr_loss"]}
        for i, batch in enumerate(self.loader):
            dloss = self._train_step(batch)
            with torch.no_grad():
                loss = float(dloss)
                stats["tr_loss"].append(loss)
                self._tracker.update([i, loss])
        return stats

    def run(self, epochs):
        for epoch in range(epochs):
            stats = self._train()
            self._log(stats)
        print("timeline", round(sum(v[1] for v in self._tracker.timeline), 4))

    def _log(self, stats):
        tr_loss = np.mean(stats["tr_loss"])
        print(f"tr_loss={tr_loss:.4f}")
