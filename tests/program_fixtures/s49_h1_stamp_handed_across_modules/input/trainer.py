"""The trainer module: train() saves the model to 'm-' + its stamp argument (through a
local path made from it); Evaluator.evaluate() loads the path it is handed."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def train(stamp, epochs):
    torch.manual_seed(0)
    x = torch.randn(16, 6)
    loader = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=4, shuffle=False)
    model = nn.DataParallel(nn.Linear(6, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(epochs):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        name = "m-" + stamp + ".pth.tar"
        torch.save({"state_dict": model.state_dict()}, name)


class Evaluator:
    def evaluate(self, path):
        model = nn.DataParallel(nn.Linear(6, 1))
        model.load_state_dict(torch.load(path)["state_dict"])
        print("weights %.6f" % model.module.weight.sum().item())
