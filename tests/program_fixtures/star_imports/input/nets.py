import torch
import torch.nn as nn

OPTIMIZERS = {}


def build():
    model = nn.DataParallel(nn.Linear(5, 1))
    OPTIMIZERS[id(model)] = torch.optim.SGD(model.parameters(), lr=0.1)
    return model


def step(model, x, y):
    optimizer = OPTIMIZERS[id(model)]
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
