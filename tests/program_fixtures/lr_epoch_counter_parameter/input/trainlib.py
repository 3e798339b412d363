"""The learning rate set by the counter of `for epoch in range(s_epoch, num_epochs)`, whose
bounds are parameters this module cannot prove uniform: the same on every rank in every
pass, no figure of this rank's batches (no DP090; before stop 43: "a figure this rank
computes from its own batches"). The rate halved on this rank's summed loss is one: DP090."""
import torch


def train(model, loader, num_epochs, s_epoch=0):
    warmup = [0.5e-3, 1e-3]
    optim = torch.optim.Adamax(model.parameters(), lr=1e-3)
    best = None
    for epoch in range(s_epoch, num_epochs):
        if epoch < len(warmup):
            optim.param_groups[0]["lr"] = warmup[epoch]
        total = 0.0
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            optim.step()
            optim.zero_grad()
            total += loss.item()
        if best is not None and total > best:
            optim.param_groups[0]["lr"] = optim.param_groups[0]["lr"] * 0.5
        best = total if best is None else min(best, total)
