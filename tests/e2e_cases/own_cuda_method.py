"""Fresh round stop 30, class D1 (HobbitLong/CMC's AliasMethod): an object of the program
that moves its own tensors with a `cuda()` of its own and has no `to()`, called
unconditionally. The migration rewrote the call to `.to(DEVICE)`: AttributeError at start on
every rank. Now the call stays (its body moves the tensors to DEVICE): the original's
weights on both ranks."""

import torch
from torch import nn


class AliasTable:
    def __init__(self, n):
        self.prob = torch.full((n,), 1.0 / n)

    def cuda(self):
        if torch.cuda.is_available():
            self.prob = self.prob.cuda()
        return self

    def draw(self, k, generator):
        return torch.multinomial(self.prob, k, replacement=True, generator=generator)


class Bank(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.table = AliasTable(n)
        self.table.cuda()
        self.register_buffer("memory", torch.linspace(0.0, 1.0, n * 3).view(n, 3))

    def forward(self, out, generator):
        idx = self.table.draw(out.size(0), generator)
        return (out * self.memory[idx]).sum(1).mean() + out.pow(2).mean()


torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 3))
bank = Bank(8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
draws = torch.Generator().manual_seed(1)
for _step in range(3):
    optimizer.zero_grad()
    loss = bank(model(x), draws)
    loss.backward()
    optimizer.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
