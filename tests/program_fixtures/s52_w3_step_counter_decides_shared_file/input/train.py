# wujiyang/Face_Pytorch@3afd941 train.py: every `test_freq` iterations (a step counter
# `total_iters += 1` in the loop over the training loader, and a parsed argument) another
# module's helper writes the evaluation set's features to a file, and every rank reads it
# back. Migrated, the loader is sharded (as many batches on every rank) and the write is rank
# 0's; the condition is the same on every rank, but the other module read this one's
# original text, where the loader had no sampler yet: not proved so, no barrier, DP054 in
# both modules, and rank 1 read a file rank 0 had not written yet.
import argparse
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from evallib import evaluate, extract


def train(args):
    net = nn.DataParallel(nn.Linear(6, 3))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    trainset = TensorDataset(torch.randn(16, 6), torch.randn(16, 3))
    trainloader = DataLoader(trainset, batch_size=4, shuffle=False)
    testloader = DataLoader(TensorDataset(torch.randn(8, 6)), batch_size=4)
    os.makedirs("result", exist_ok=True)
    total_iters = 0
    for epoch in range(1, args.total_epoch + 1):
        for x, y in trainloader:
            loss = (net(x) - y).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total_iters += 1
            if total_iters % args.test_freq == 0:
                extract("./result/cur_result.npy", net, testloader)
                print("iter", total_iters, "eval %.4f" % evaluate("./result/cur_result.npy"))
    print("weights %.4f" % net.module.weight.sum().item())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--total_epoch", type=int, default=2)
    parser.add_argument("--test_freq", type=int, default=2)
    torch.manual_seed(0)
    train(parser.parse_args())
