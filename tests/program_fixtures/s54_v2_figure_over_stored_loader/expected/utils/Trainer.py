import numpy as np
import torch as t
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print

from .heatmap import make_target


class Trainer(object):
    def __init__(self, model, train_data, gpus=()):
        self.train_data = train_data
        self.model = model
        self.model = DistributedDataParallel(
            self.model.to(DEVICE), device_ids=DEVICE_IDS
        )
        self.optimizer = t.optim.SGD(self.model.parameters(), lr=0.1)

    def train(self, epochs):
        for epoch in range(epochs):
            self._train_one_epoch()

    def _train_one_epoch(self):
        total = 0.0
        for step, (data, label) in enumerate(self.train_data):
            target = make_target(label, 2.0)
            target = t.from_numpy(np.asarray(target, dtype=np.float32))
            score = self.model(data)
            loss = (score - target).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        # dp2ddp: DP030 running figure printed from this rank's shard
        ddp_print("epoch loss %.4f" % (total / len(self.train_data)))
