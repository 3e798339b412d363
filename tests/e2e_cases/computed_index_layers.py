"""Fresh round stop 30, class U4 (rosinality/style-based-gan-pytorch@07fa60b's progressive
discriminator): forward() picks its layers from a ModuleList by an index computed from a step
argument, the other layers without gradient. DDP failed at the second step ("Expected to
have finished reduction in the prior iteration"), with no warning. Now DP041 and
find_unused_parameters=True: to the end, the original's weights."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Grow(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(6, 6) for _ in range(3)])
        self.head = nn.Linear(6, 1)

    def forward(self, x, step=0):
        for i in range(step, -1, -1):
            x = self.blocks[len(self.blocks) - i - 1](x)
        return self.head(x)


torch.manual_seed(0)
net = nn.DataParallel(Grow())
opt = torch.optim.SGD(net.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(16, 6)), batch_size=4)
for k, (x,) in enumerate(loader):
    loss = net(x, step=min(k, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in net.module.parameters()]
print("final", E2E_DIGEST)
