"""One training epoch and one validation pass, with their logging."""

import logging

import torch

logger = logging.getLogger(__name__)


def train(cfg, loader, model, criterion, optimizer, epoch):
    model.train()
    for i, (inputs, targets) in enumerate(loader):
        loss = criterion(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % cfg.PRINT_FREQ == 0:
            logger.info("Epoch: [%d][%d/%d] loss %.4f", epoch, i, len(loader), loss.item())


def validate(loader, model, criterion):
    model.eval()
    total = count = 0
    with torch.no_grad():
        for inputs, targets in loader:
            total += criterion(model(inputs), targets).item() * len(inputs)
            count += len(inputs)
    return total / count
