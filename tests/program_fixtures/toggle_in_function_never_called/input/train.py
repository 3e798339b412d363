import argparse

import torch
import torch.nn as nn

from lightlib import DictAction


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-args", action=DictAction, default={})
    parser.parse_args([])
    torch.manual_seed(0)
    model = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 2))
    loader = torch.utils.data.DataLoader(data, batch_size=4)
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("weights", round(sum(p.sum().item() for p in model.parameters()), 4))


if __name__ == "__main__":
    main()
