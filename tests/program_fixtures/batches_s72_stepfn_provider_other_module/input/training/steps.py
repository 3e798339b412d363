"""The training steps: each pulls one batch from what its caller hands it, and trains."""

import torch.nn.functional as F


def fit_step(model, optimizer, provider):
    inputs, targets = provider.__next__()
    loss = F.mse_loss(model(inputs), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def refine_step(model, optimizer, batches):
    batch = next(batches)
    inputs, targets = batch
    loss = F.l1_loss(model(inputs), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
