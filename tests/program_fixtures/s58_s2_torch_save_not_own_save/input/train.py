"""A module-level store into torch (`torch.backends.cudnn.benchmark = False`) does not rebind
`torch`: `torch.save(...)` below is torch's, not a call of the program's own `Params.save`,
which nothing calls (EifelTing/Generous-Teacher@b78440d, stop 57 v3-D: DP054 said the
params file Params.save writes on rank 0 is read by every rank at Params.__init__)."""
import json
import os

import torch
from torch.utils.data import DataLoader, TensorDataset

from utils.params import Params

torch.backends.cudnn.benchmark = False


def main():
    os.makedirs("exp", exist_ok=True)
    with open("exp/params.json", "w") as f:
        json.dump({"lr": 0.1, "epochs": 2}, f)
    params = Params("exp/params.json")
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    loader = DataLoader(data, batch_size=4, shuffle=True)
    model = torch.nn.DataParallel(torch.nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=params.lr)
    best = None
    for epoch in range(params.epochs):
        total = 0.0
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        if best is None or total < best:
            best = total
            torch.save({"state": model.state_dict()}, "exp/best.tar")


if __name__ == "__main__":
    main()
