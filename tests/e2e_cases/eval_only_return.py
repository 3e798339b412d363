"""Validation round stop 31, class F1 (michuanhaohao/AlignedReID@fca9620's ResNet50):
forward() returns early only in evaluation (`if not self.training: return f`). Every
training step reaches the classifier, so DDP needs no search for unused parameters (before:
DP041 added the flag; torch said "did not find any unused parameters" each step). Now no
DP041, no flag: to the end, the original's weights, features read in eval mode after training."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Linear(4, 8)
        self.classifier = nn.Linear(8, 3)

    def forward(self, x):
        f = self.base(x)
        if not self.training:
            return f
        return self.classifier(f)


torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4), torch.randint(0, 3, (32,)))
loader = DataLoader(data, batch_size=8, shuffle=False)
model = nn.DataParallel(Net())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _epoch in range(2):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
model.eval()
with torch.no_grad():
    features = model(torch.randn(2, 4))
assert features.shape == (2, 8), features.shape
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.module.parameters()]
print("final", E2E_DIGEST)
