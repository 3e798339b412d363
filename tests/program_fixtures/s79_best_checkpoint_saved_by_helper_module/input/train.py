import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from keeping import keep

FOLDER = os.path.join(tempfile.gettempdir(), "s79_best_checkpoint")
os.makedirs(FOLDER, exist_ok=True)


def fit(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    lowest = float("inf")
    for epoch in range(epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        keep({"epoch": epoch, "weights": model.state_dict()}, loss.item() < lowest, FOLDER)
        lowest = min(lowest, loss.item())


def last_check(model):
    saved = torch.load(os.path.join(FOLDER, "best.pt"))
    model.load_state_dict(saved["weights"])
    print("restored the checkpoint of epoch", saved["epoch"])


torch.manual_seed(0)
net = nn.DataParallel(nn.Linear(4, 1))
data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
fit(net, DataLoader(data, batch_size=8, shuffle=True), 2)
last_check(net)
