import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from sync_batchnorm import DataParallelWithCallback, patch_replication_callback
from utils import bare


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sync_bn", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    if args.sync_bn:
        model = DataParallelWithCallback(model)
    else:
        model = torch.nn.DataParallel(model)
        patch_replication_callback(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print("epoch", epoch, loss.item())
    torch.save(bare(model).state_dict(), "model.pt")


if __name__ == "__main__":
    main()
