"""The entry of s62_s1_dataset_by_runtime_name_draws (stop 62 s1; found by stop 61 s3): the
dataset module is imported by a name the command line gives
(`importlib.import_module(args.dataset)`, named nowhere in the code), and the project's datasets/toy.py draws its
split from torch's generator, which nothing seeds. Read by no program, its draw is each
rank's own if it is the module imported: DP131 at the import names it (before: no
warning; each rank built a different split and the sampler sharded different data)."""
import argparse
import importlib

import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", required=True)  # `--dataset datasets.toy`
    args = parser.parse_args()
    data = importlib.import_module(args.dataset).Data(16)
    loader = DataLoader(data, batch_size=4, shuffle=False)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
