"""The wrap sits under `if torch.cuda.is_available():` next to GPU-only settings. On CPU the
original trains unwrapped; the migration must wrap on every process anyway, or each rank
trains its own model on its own shard (ranks out of sync)."""

import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
dataset = TensorDataset(torch.randn(64, 6), torch.randn(64, 1))
loader = DataLoader(dataset, batch_size=16, shuffle=True)
model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
if torch.cuda.is_available():
    model.cuda()
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    cudnn.benchmark = True
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    print(f"epoch {epoch} done")
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
