"""The training entry: DataParallel under `__main__`."""

import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 2)

    def forward(self, x):
        return self.proj(x)


if __name__ == "__main__":
    model = nn.DataParallel(Tagger())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        optimizer.zero_grad()
        model(torch.ones(4, 4)).sum().backward()
        optimizer.step()
    torch.save(model.module.state_dict(), "tagger.pt")
