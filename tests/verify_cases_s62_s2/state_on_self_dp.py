"""A model without BatchNorm that keeps a state on `self` in forward() (round 14 v2-F,
123sherlocklee/Generative-BiLSTM@4341d29: hidden states set when None): on W GPUs each call
runs on fresh replicas, so the state set is dropped and every step starts from zeros. Run
by verify's original (the replicas emulated), the state was kept, step 2 backpropagated
through step 1's freed graph, and verify said "the original failed under verify's seeding"."""

import torch
import torch.nn as nn


class Stateful(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 2)
        self.h = None

    def forward(self, x):
        if self.h is None:
            self.h = torch.zeros(x.size(0), 2)
        out = torch.tanh(self.lin(x) + self.h)
        self.h = out
        return out


torch.manual_seed(0)
X = torch.randn(32, 4)
Y = torch.randn(32, 2)
model = nn.DataParallel(Stateful())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    x, y = X[step * 8 : (step + 1) * 8], Y[step * 8 : (step + 1) * 8]
    loss = (model(x) - y).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f}")
