import numpy as np
import torch as t
import torch.nn as nn

from .heatmap import make_target


class Trainer(object):
    def __init__(self, model, train_data, gpus=()):
        self.train_data = train_data
        self.model = model
        if len(gpus) > 0:
            self.model = nn.DataParallel(self.model, device_ids=gpus)
        self.optimizer = t.optim.SGD(self.model.parameters(), lr=0.1)

    def train(self, epochs):
        for epoch in range(epochs):
            self._train_one_epoch()

    def _train_one_epoch(self):
        for step, (data, label) in enumerate(self.train_data):
            target = make_target(label, 2.0)
            target = t.from_numpy(np.asarray(target, dtype=np.float32))
            score = self.model(data)
            loss = (score - target).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
