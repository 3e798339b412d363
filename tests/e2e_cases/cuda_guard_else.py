"""Both branches of a CUDA guard wrap (yhenon/pytorch-retinanet's train.py): `if
torch.cuda.is_available(): m = DataParallel(m).cuda() else: m = DataParallel(m)`, then
`m.module.freeze_bn()` (BatchNorm layers to eval mode). Migrated, one wrap on every path: on
CPU the else branch's wrap kept made DDP(DDP(m)), and `m.module.freeze_bn()` failed on both
ranks."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 1))

    def forward(self, x):
        return self.body(x)

    def freeze_bn(self):
        for layer in self.modules():
            if isinstance(layer, nn.BatchNorm1d):
                layer.eval()


torch.manual_seed(0)
dataset = TensorDataset(torch.randn(64, 6), torch.randn(64, 1))
loader = DataLoader(dataset, batch_size=16, shuffle=True)
model = Net()
if torch.cuda.is_available():
    model = nn.DataParallel(model).cuda()
else:
    model = nn.DataParallel(model)
model.module.freeze_bn()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    print(f"epoch {epoch} done")
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
