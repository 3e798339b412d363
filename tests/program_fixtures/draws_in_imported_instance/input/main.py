# Stop 45 (v3-B, program-wide; Alibaba-MIIL/AudioClassfication@6277e5e's shape): the batch-
# mixing object is an instance of another module's class, handed to a trainer and kept as
# its attribute; its __call__ decides with Python's unseeded `random` and draws partners and
# weights sized by the rank's batch (through a method it calls): DP006 at the call, naming
# augs.py's line.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from augs import BatchAugs


class Trainer:
    def __init__(self, model, loader, batch_augs):
        self.model, self.loader = model, loader
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.batch_augs = batch_augs

    def epoch(self, epoch):
        for x, y in self.loader:
            x, y, _ = self.batch_augs(x, y, epoch)
            loss = ((self.model(x) - y) ** 2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()


def main():
    torch.manual_seed(0)
    x = torch.randn(16, 4)
    loader = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=4)
    trainer = Trainer(nn.DataParallel(nn.Linear(4, 1)), loader, BatchAugs(1.0))
    for epoch in range(2):
        trainer.epoch(epoch)
    print("weights %.4f" % trainer.model.module.weight.sum().item())


if __name__ == "__main__":
    main()
