"""Each configuration saves its settings with another module's save_json, whose only look at
the folder is `if not os.path.exists(folder): os.makedirs(folder)`: no read of the file rank
0 wrote, so no barrier and no DP054 after the first save (before: the second call's probe was
taken for a read of the first call's file; round 25, taishan1994/pytorch_bert_bilstm_crf_ner
@16ee44d main.py, six false DP054)."""

import argparse
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import common


def fit(loader):
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for xb, yb in loader:
        loss = ((model(xb) - yb) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("weights %.6f" % model.module.weight.sum().item())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_name", default="small")
    args = parser.parse_args()
    root = tempfile.gettempdir()
    torch.manual_seed(0)
    x = torch.randn(16, 4)
    loader = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=4)
    if args.data_name == "small":
        common.save_json("{}/s73_probe_{}/".format(root, args.data_name), vars(args), "args")
        fit(loader)
    if args.data_name == "large":
        common.save_json("{}/s73_probe_{}/".format(root, args.data_name), vars(args), "args")
        fit(loader)
