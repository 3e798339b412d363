"""Validation round stop 42, class v3-A (jnhwkim/ban-vqa@ef4cc36's counting.Counter): a
ModuleList of 16 maps built by a comprehension, forward() reading `self.f[0]` ... `self.f[7]`
only. The other entries got no gradient and DDP failed at the second step on both ranks
("Expected to have finished reduction in the prior iteration"), with no warning. Now DP041 and
find_unused_parameters=True: to the end, the original's weights."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.ModuleList([nn.Linear(6, 6) for _ in range(4)])
        self.head = nn.Linear(6, 1)

    def forward(self, x):
        return self.head(self.f[0](x) * self.f[1](x))


torch.manual_seed(0)
net = nn.DataParallel(Counter())
opt = torch.optim.SGD(net.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(16, 6)), batch_size=4)
for (x,) in loader:
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in net.module.parameters()]
print("final", E2E_DIGEST)
