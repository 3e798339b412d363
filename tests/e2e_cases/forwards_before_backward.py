"""Validation round stop 32, class L5 (CUT,
taesungp/contrastive-unpaired-translation@b3ac297): a generator called three times
before one backward (a translation pass, then two encode-only passes for a feature
loss) leaves its decoder unused in the last calls. Before: DP041 and
find_unused_parameters=True, "marked as ready twice" at the first backward on both
ranks. Now DP096 and static_graph=True: the original's weights."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Gen(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(4, 4)
        self.dec = nn.Linear(4, 4)

    def forward(self, x, encode_only=False):
        h = self.enc(x)
        if encode_only:
            return h
        return self.dec(h)


torch.manual_seed(0)
net = nn.DataParallel(Gen())
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = TensorDataset(torch.randn(16, 4))
for _epoch in range(2):
    for (x,) in DataLoader(data, batch_size=4, shuffle=False):
        fake = net(x)
        feat_q = net(fake, encode_only=True)
        feat_k = net(x, encode_only=True)
        loss = fake.pow(2).mean() + (feat_q - feat_k).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    codes = net(x, encode_only=True)  # after the last backward: not counted
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in net.parameters()]
print("final", E2E_DIGEST)
