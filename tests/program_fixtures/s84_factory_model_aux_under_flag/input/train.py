import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from models.nets import build

p = argparse.ArgumentParser()
p.add_argument("--multi", type=int, default=0)
p.add_argument("--lr", type=float, default=0.1)
args = p.parse_args()
torch.manual_seed(0)


class Trainer:
    def __init__(self, args):
        self.args = args
        self.model, params = build(args)
        self.model = nn.DataParallel(self.model)
        self.optimizer = torch.optim.SGD(params=params, lr=args.lr)
        ds = TensorDataset(torch.randn(32, 8), torch.randint(0, 3, (32,)))
        self.loader = DataLoader(ds, batch_size=8, shuffle=False)
        self.crit = nn.CrossEntropyLoss()

    def train_one_epoch(self):
        for x, y in self.loader:
            pred = self.model(x)
            if isinstance(pred, tuple):
                pred_2 = pred[1]
                pred = pred[0]
            loss = self.crit(pred, y)
            if self.args.multi:
                loss = loss + 0.1 * self.crit(pred_2, y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return loss.item()


t = Trainer(args)
for epoch in range(2):
    print("epoch", epoch, "loss %.6f" % t.train_one_epoch())
print("PARAMSUM %.6f" % sum(p.sum().item() for p in t.model.parameters()))
