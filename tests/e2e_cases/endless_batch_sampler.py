"""Fresh round stop 31, class A1 (qiuqiangkong/audioset_tagging_cnn's samplers): the loader's
own batch sampler never ends (`while True: yield batch`, drawn from its own RandomState) and
the loop stops itself after 4 steps. Migrated, DdpBatchShard listed every global batch
before the first step: no step, memory without bound. Now drawn one batch at a time, alike
on every rank: each rank takes its half of the original's batches, the original's weights."""

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class EndlessSampler:
    def __init__(self, n, batch_size):
        self.n, self.batch_size = n, batch_size
        self.random_state = np.random.RandomState(1234)

    def __iter__(self):
        while True:
            yield [int(i) for i in self.random_state.randint(0, self.n, self.batch_size)]


torch.manual_seed(0)
x = torch.randn(40, 6)
y = torch.randint(0, 2, (40,))
loader = DataLoader(TensorDataset(x, y), batch_sampler=EndlessSampler(40, 8))
model = nn.DataParallel(nn.Linear(6, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step, (inputs, targets) in enumerate(loader):
    loss = nn.functional.cross_entropy(model(inputs), targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step == 3:
        break
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
