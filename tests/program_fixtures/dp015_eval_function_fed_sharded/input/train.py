import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from evaluate import eval_score


def make_loader(n, tag=""):
    dataset = TensorDataset(torch.randn(n, 4), torch.randn(n, 1))
    return DataLoader(dataset, batch_size=4, shuffle=(tag == "train"))


def make_loaders():
    train_loader = make_loader(16, tag="train")
    val_loader = make_loader(8, tag="val")
    return train_loader, val_loader


def main():
    train_loader, val_loader = make_loaders()
    model = nn.DataParallel(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in train_loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        score = eval_score(val_loader, model.module)
        print("epoch", epoch, "val", score)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    main()
