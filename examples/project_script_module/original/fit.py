"""Train the network of evaluate.py (star import, as many repositories write it)."""

import torch
from torch.nn import DataParallel
from torch.utils.data import DataLoader

from evaluate import *

if __name__ == "__main__":
    torch.manual_seed(0)
    model = DataParallel(Net())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    train_loader = DataLoader(make_set(256, 1), batch_size=32, shuffle=True)
    val_loader = DataLoader(make_set(96, 2), batch_size=32)
    for epoch in range(3):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        score = accuracy(model, val_loader)
        print(f"epoch {epoch}: loss {loss.item():.4f} val accuracy {score:.3f}")
    print(f"final val accuracy {score:.3f}")
