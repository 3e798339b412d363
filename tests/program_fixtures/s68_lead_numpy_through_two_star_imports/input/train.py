"""numpy reached through two star imports (round 21, YuanGongND/gopt@bed909d: `from models
import *`, whose `__init__` says `from .gopt import *`, which imports numpy as np): the
results `np.savetxt` and `np.save` write each epoch are rank 0's (before: written by every
rank, nothing said)."""

import os
import tempfile

from torch.utils.data import DataLoader, TensorDataset

from models import *

out_dir = tempfile.mkdtemp()
torch.manual_seed(0)
model = nn.DataParallel(Scorer())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(16, 6), torch.randn(16, 1)), batch_size=4)
results = np.zeros([2, 2])
for epoch in range(2):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    results[epoch] = [epoch, loss.item()]
    np.savetxt(os.path.join(out_dir, "results.csv"), results, delimiter=",")
    np.save(os.path.join(out_dir, "last.npy"), results)
