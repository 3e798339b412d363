"""The control of s59_s2_seed_drawn_handed_across_modules: another module's function seeds
torch's generator with its parameter, handed a constant here: every rank seeds it alike, so
DP067 stays (the Dataset's per-sample draws alike on every rank)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import Jittered
from util import set_random_seed


def main():
    set_random_seed(7)
    loader = DataLoader(Jittered(), batch_size=4, shuffle=True)
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
