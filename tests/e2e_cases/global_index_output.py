"""An output of (heads x batch) rows indexed at positions of the global batch (issue 28
class N5; real-world: soobinseo/Transformer-TTS@87bd9c9, `prob[j * 16]` for head j's first
attention map with a batch of 16): `probs[j * BATCH]` and a loop `for k in range(BATCH)`
over the output's rows. DataParallel gathered the outputs of the whole batch; each rank now
holds those of its part, and the global positions ran past them (IndexError on every rank,
no warning). Migrated, the positions read the loader's size per rank: the run ends, with the
original's weights (the loader is not shuffled, so the ranks' parts make the original's
batches)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

BATCH, HEADS = 8, 2

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.att = nn.Linear(4, 4)

    def forward(self, x):
        a = self.att(x).softmax(-1)
        return a, torch.cat([a] * HEADS, 0)  # rows h * batch + i


model = nn.DataParallel(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = TensorDataset(torch.randn(32, 4), torch.rand(32, 4))
for step, (x, y) in enumerate(DataLoader(data, batch_size=BATCH, shuffle=False)):
    out, probs = model(x)
    loss = F.mse_loss(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 0:
        grids = [probs[j * BATCH] for j in range(HEADS)]  # head j's first map
        for k in range(BATCH):
            assert probs[k].shape == (4,)
        assert len(grids) == HEADS
E2E_DIGEST = [round(float(p.detach().double().sum()), 6) for p in model.parameters()]
print("final", E2E_DIGEST)
