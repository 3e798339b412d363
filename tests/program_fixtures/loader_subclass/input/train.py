import argparse

import torch

from data import PairLoader, make_set


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shuffle", type=int, default=1)
    args = parser.parse_args()
    model = torch.nn.DataParallel(torch.nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = PairLoader(make_set(64), batch_size=8, shuffle=args.shuffle)
    valid_loader = PairLoader(make_set(16), batch_size=8)
    for epoch in range(2):
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        with torch.no_grad():
            total = sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in valid_loader)
        print(epoch, total)


if __name__ == "__main__":
    main()
