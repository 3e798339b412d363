"""Helpers of the program (GAN_stability's utils.py shape): a fixed batch gathered from a
loader, by restarting it until there are n samples; a module-level helper reading the
first batches with `for ... break`."""
import torch


def get_nsamples(data_loader, n):
    xs, k = [], 0
    while k < n:
        (x,) = next(iter(data_loader))
        xs.append(x)
        k += x.size(0)
    return torch.cat(xs)[:n]


def first_batches(data_loader, count):
    taken = []
    for (x,) in data_loader:
        taken.append(x)
        if len(taken) == count:
            break
    return torch.cat(taken)


def train_epoch(model, opt, data_loader):
    for (x,) in data_loader:
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    return x
