import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print


class Trainer:
    def __init__(self, train_loader, eval_loader):
        self.model = DistributedDataParallel(
            nn.Linear(6, 3).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.train_loader = train_loader
        self.eval_loader = eval_loader
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-2)

    def evaluate(self):
        self.model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in self.eval_loader:
                correct += (
                    self.model(x.to(DEVICE)).argmax(1) == y.to(DEVICE)
                ).sum().item()
        return correct / len(self.eval_loader.dataset)

    def run(self, epochs):
        for epoch in range(epochs):
            self.model.train()
            for x, y in self.train_loader:
                loss = nn.functional.cross_entropy(
                    self.model(x.to(DEVICE)), y.to(DEVICE)
                )
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            ddp_print(f"epoch {epoch} accuracy {self.evaluate():.3f}")
