import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Trainer:
    def __init__(self, epochs):
        torch.manual_seed(0)
        data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
        self.loader = DataLoader(data, batch_size=8, shuffle=True)
        self.model = nn.DataParallel(nn.Linear(4, 2))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.epochs = epochs

    def start(self):
        for epoch in range(self.epochs):
            for inputs, labels in self.loader:
                loss = nn.functional.cross_entropy(self.model(inputs), labels)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            print(f"epoch {epoch} loss {loss.item():.4f}")
        print("final done")
