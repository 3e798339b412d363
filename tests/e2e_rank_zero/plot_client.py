"""A visdom client made on every rank (class v2-F of the stop-41 validation round,
jhjacobsen/invertible-resnet@630e886): every plot call of rank 1 reached the server beside
rank 0's. Migrated, the client is rank 0's, a DdpNullClient elsewhere that answers
check_connection() truthily (asserted here, as programs do)."""

import numpy as np
import torch
import torch.nn as nn
import visdom
from torch.utils.data import DataLoader, TensorDataset


def plot_loss(viz, step, loss):
    viz.line(X=np.array([step]), Y=np.array([loss]), win="loss", update="append")


torch.manual_seed(0)
viz = visdom.Visdom(port=8097, env="train")
assert viz.check_connection(), "start a visdom server"
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randn(16, 1)), batch_size=4)
for step, (x, y) in enumerate(loader):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    plot_loss(viz, step, loss.item())
viz.text("done", win="status")
