"""Training and evaluation loaders from another module's factory; the evaluation ones
take its default order. Accuracy is computed over every prediction of the set."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from loaders import build_loader

ddp_setup()


torch.manual_seed(0)


class Runner:
    def __init__(self):
        self.train_data = build_loader(24, 6, shuffle=True)
        # dp2ddp: DP015 evaluation metrics not reduced
        self.dev_data = build_loader(18, 6, ddp_shard=False)
        self.net = DistributedDataParallel(
            nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 3)).to(DEVICE),
            device_ids=DEVICE_IDS,
        )
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.2)

    def score(self):
        self.net.eval()
        hits, seen = 0, 0
        with torch.no_grad():
            for x, y in self.dev_data:
                hits += int((self.net(x).argmax(1) == y).sum())
                seen += len(y)
        return hits / seen, seen

    def fit(self, epochs=2):
        for epoch in range(epochs):
            self.train_data.sampler.set_epoch(epoch)
            self.net.train()
            for x, y in self.train_data:
                self.optimizer.zero_grad()
                nn.functional.cross_entropy(self.net(x), y).backward()
                self.optimizer.step()
            accuracy, seen = self.score()
            ddp_print("epoch %d dev accuracy %.4f over %d" % (epoch, accuracy, seen))


runner = Runner()
runner.fit()
ddp_print(
    "weights %.6f" % sum(float(w.detach().sum()) for w in runner.net.parameters())
)
