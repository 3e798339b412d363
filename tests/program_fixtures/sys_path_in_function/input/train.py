import torch
import torch.nn as nn

from data.provider import init


def main():
    model = nn.DataParallel(nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = init(16)
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
