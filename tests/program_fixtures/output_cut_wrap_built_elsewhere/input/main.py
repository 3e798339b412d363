"""Class v3-C of stop 46 (okankop/Driver-Anomaly-Detection@6f7f251's layout): a normal and
an anomalous batch are concatenated, the model built and wrapped by models.generate_model()
runs on both, a head on its output, and the head's rows are cut back at the normal loader's
batch size."""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from models import generate_model


def train(normal_loader, anomal_loader, model, opt, args):
    for (xn, _), (xa, _) in zip(normal_loader, anomal_loader):
        data = torch.cat((xn, xa), dim=0)
        feats = model(data)
        vec = torch.tanh(feats)
        n_vec = vec[0 : args.n_batch]
        a_vec = vec[args.n_batch :]
        print("normal rows", n_vec.shape[0], "anomalous rows", a_vec.shape[0])
        loss = -(n_vec.mean(0) - a_vec.mean(0)).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


parser = argparse.ArgumentParser()
parser.add_argument("--n_batch", type=int, default=4)
parser.add_argument("--a_batch", type=int, default=4)
args = parser.parse_args()
torch.manual_seed(0)
normal = TensorDataset(torch.randn(16, 6), torch.arange(16))
anomal = TensorDataset(torch.randn(16, 6) + 3, torch.arange(16))
normal_loader = DataLoader(normal, batch_size=args.n_batch, shuffle=True)
anomal_loader = DataLoader(anomal, batch_size=args.a_batch, shuffle=True)
model = generate_model()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
train(normal_loader, anomal_loader, model, opt, args)
