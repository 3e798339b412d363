# Stop 45 (v3-B, program-wide): the batch-mixing object is an instance of another module's
# class, handed to the training function as a parameter; its __call__ decides with Python's
# unseeded `random` and draws partners and weights sized by the rank's batch (through a
# method it calls): DP006 at the call, naming augs.py's line.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from augs import BatchAugs


def train(model, loader, opt, batch_augs, epoch):
    for x, y in loader:
        x, y, _ = batch_augs(x, y, epoch)
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    torch.manual_seed(0)
    x = torch.randn(16, 4)
    loader = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=4)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    augs = BatchAugs(1.0)
    for epoch in range(2):
        train(model, loader, opt, augs, epoch)
    print("weights %.4f" % model.module.weight.sum().item())


if __name__ == "__main__":
    main()
