"""The seed reaches `torch.manual_seed` through a parameter of another module's function,
handed `config["seed"]`, a third module's draw from an unseeded stream: each rank seeds its
streams apart, so the Dataset's per-sample draws differ per rank as DataParallel's did, and
no DP067 says "seeded alike" (before: the parameter counted as a value no rank draws)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from config import Config
from data import Jittered
from util import set_random_seed


def main():
    config = Config()
    set_random_seed(config["seed"])
    loader = DataLoader(Jittered(), batch_size=config["batch_size"], shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(2):
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    print("trained")


if __name__ == "__main__":
    main()
