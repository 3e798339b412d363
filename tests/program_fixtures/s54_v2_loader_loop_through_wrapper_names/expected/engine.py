import torch
from tqdm import tqdm


class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0
        self.avg = 0.0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def do_training_epoch(train_loader, model, optimiser, quiet=False):
    losses = AverageMeter()
    model.train()
    iterable = enumerate(train_loader)
    progress = None
    if not quiet:
        progress = tqdm(iterable, desc="Train", total=len(train_loader), disable=True)
        iterable = progress
    for i, (input, target) in iterable:
        loss = (model(input) - target).pow(2).mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.update(loss.item(), input.size(0))
    return losses.avg


def do_validation_epoch(val_loader, model, quiet=False):
    losses = AverageMeter()
    model.eval()
    iterable = enumerate(val_loader)
    progress = None
    if not quiet:
        progress = tqdm(iterable, desc="Valid", total=len(val_loader), disable=True)
        iterable = progress
    with torch.no_grad():
        for i, (input, target) in iterable:
            loss = (model(input) - target).pow(2).mean()
            losses.update(loss.item(), input.size(0))
    return losses.avg
