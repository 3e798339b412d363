"""Issue 28 class T1 (yjxiong/tsn-pytorch's partial BN): an overridden train() freezes a
layer's parameters, and the loop calls model.train() after the wrap. Before: only DP008,
DDP stopped at step 2 ("Expected to have finished reduction")."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 8)
        self.norm = nn.BatchNorm1d(8)
        self.b = nn.Linear(8, 2)

    def train(self, mode=True):
        super().train(mode)
        self.norm.eval()  # freeze the norm layer: statistics and affine parameters
        self.norm.weight.requires_grad = False
        self.norm.bias.requires_grad = False
        return self

    def forward(self, x):
        return self.b(torch.relu(self.norm(self.a(x))))


torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
loader = DataLoader(data, batch_size=8, shuffle=False)
model = nn.DataParallel(Net())
opt = torch.optim.SGD([p for p in model.parameters()], lr=0.1)
for _epoch in range(2):
    model.train()
    for x, y in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
