"""The training loop, imported as a top-level package (`from common.trainer import fit`)."""
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader


def fit(model, dataset, epochs):
    loader = DataLoader(dataset, batch_size=8, shuffle=False)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print("epoch %d loss %.6f" % (epoch, loss.item()))
