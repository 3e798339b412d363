"""A fixed batch fetched once before training for sample images (`fixed_x, _ =
next(iter(loader))`): the original's was the global batch of 16. From the sharded loader it
would be this rank's 8 (the saved grid half empty). Migrated, it is the loader's first
global batch, the same on both ranks (ddp_whole_batch), drawn as the original drew it."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
dataset = TensorDataset(torch.randn(64, 6), torch.randn(64, 1))
loader = DataLoader(dataset, batch_size=16, shuffle=False)
fixed_x, _ = next(iter(loader))
model = nn.DataParallel(nn.Linear(6, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    with torch.no_grad():
        samples = model(fixed_x)
    print(f"epoch {epoch}: {samples.shape[0]} samples")
SAMPLES = [len(fixed_x), round(float(fixed_x.sum()), 5)]
E2E_DIGEST = [*SAMPLES, *(round(float(p.detach().sum()), 5) for p in model.parameters())]
print("final", E2E_DIGEST)
