import argparse

import torch
import torch.nn as nn

from digits import Digits, Letters
from flows import Shift, describe

parser = argparse.ArgumentParser()
parser.add_argument("--data", choices=["digits", "letters"], default="digits")
parser.add_argument("--layer_type", default="ignore")
parser.add_argument("--time_length", type=float, default=0.5)
args = parser.parse_args()

if args.layer_type == "blend":
    args.time_length = 1.0


def get_dataset(args):
    if args.data == "digits":
        train_set = Digits(root="./data", download=True)
    elif args.data == "letters":
        train_set = Letters(root="./data", download=True)
    return train_set


if __name__ == "__main__":
    torch.manual_seed(0)
    train_set = get_dataset(args)
    loader = torch.utils.data.DataLoader(train_set, batch_size=4, shuffle=False)
    model = nn.DataParallel(nn.Sequential(nn.Linear(4, 1), Shift(1)))
    describe(model.module[1])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
    E2E_DIGEST = [float(train_set.fetched)]
