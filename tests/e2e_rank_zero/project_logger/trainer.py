"""Training helpers that log through the project logger (no `logging` in this module)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from logs import get_logger

log = get_logger("project_logger.trainer")


def make_loader():
    data = TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
    return DataLoader(data, batch_size=16, shuffle=True)


def train_epoch(model, loader, optimizer, epoch):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    log.info("epoch %d done", epoch)
