# A bptt loop written with a position counter (`while pos < ...: ...; pos += step`) over
# batches cut by a helper of another module, the dim=1 wrap made there too.
import torch
import torch.nn as nn
from lmdata import columns, cut, wrap


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6)
        self.rnn = nn.GRU(6, 6)
        self.head = nn.Linear(6, 20)

    def forward(self, x, h):
        out, h = self.rnn(self.emb(x), h)
        return self.head(out), h


torch.manual_seed(0)
data = columns(torch.randint(0, 20, (200,)), 4)
lm = wrap(TinyLM())
opt = torch.optim.SGD(lm.parameters(), lr=0.2)
h = torch.zeros(1, 4, 6)
pos = 0
while pos < data.size(0) - 2:
    x, y = cut(data, pos, 8)
    pos += 8
    h = h.detach()
    out, h = lm(x, h)
    loss = nn.functional.cross_entropy(out.reshape(-1, 20), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
print("PARAMSUM %.6f" % sum(p.detach().double().sum().item() for p in lm.parameters()))
