"""Class C1 (fresh round 6, KaiyangZhou/pytorch-center-loss): running figures over a training
loader that another module's class builds as an attribute of its instances, sharded there.
Each rank's loop sees its share of the batches, so an averaging object fed in the loop and
printed, or a list of the batches' outputs counted after it, is rank 0's share (DP030), as
for a loader built in this module: reached through a factory's result and a local name, and
through an instance of the class itself. The evaluation loader is whole: nothing is said."""

import torch
import torch.nn as nn

import datasets


class Meter(object):
    def __init__(self):
        self.sum, self.count, self.avg = 0.0, 0, 0.0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def train(model, loader, opt):
    losses = Meter()
    feats = []
    for i, (x, y) in enumerate(loader):
        out = model(x)
        loss = ((out - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.update(loss.item(), y.size(0))
        feats.append(out.detach())
        print("step %d loss %.4f over %d samples" % (i + 1, losses.avg, losses.count))
    print("features: %d rows" % len(torch.cat(feats)))


def main():
    torch.manual_seed(0)
    d = datasets.create(8)
    loader = d.trainloader
    model = nn.DataParallel(nn.Linear(1, 1, bias=False))
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    train(model, loader, opt)
    data = datasets.Data(8)
    for epoch in range(2):
        seen = 0
        for x, y in data.trainloader:
            opt.zero_grad()
            ((model(x) - y) ** 2).mean().backward()
            opt.step()
            seen += x.size(0)
        print("epoch %d samples seen %d" % (epoch, seen))
    tested = 0
    with torch.no_grad():
        for x, y in data.testloader:
            model(x)
            tested += x.size(0)
    print("tested", tested)


if __name__ == "__main__":
    main()
