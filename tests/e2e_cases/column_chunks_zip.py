"""Column chunks taken by count (issue 28 class S3): DataParallel(model, dim=1), the batch
bound in the loop, `for x, y in zip(data.chunk(K, 1), targets.chunk(K, 1))`, each chunk's
loss weighted by its measured width over the configured batch (`x.size(1) / batch_size`).
Split where it is bound, the K chunks are each rank's part of DataParallel's, but the
weights over the global width summed to 1 / WORLD_SIZE per rank: half the gradient, no
warning. Migrated, the weight's width is this rank's part."""

import torch
import torch.nn as nn
import torch.nn.functional as F

NTOKEN, K = 10, 2
batch_size = 4

torch.manual_seed(0)


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(NTOKEN, 8)
        self.out = nn.Linear(8, NTOKEN)

    def forward(self, x):
        return self.out(self.emb(x))


source = torch.randint(0, NTOKEN, (41, batch_size))
model = nn.DataParallel(LM(), dim=1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for i in range(0, 40, 8):
    data, targets = source[i : i + 8], source[i + 1 : i + 9]
    opt.zero_grad()
    for x, y in zip(data.chunk(K, 1), targets.chunk(K, 1), strict=True):
        loss = F.cross_entropy(model(x).view(-1, NTOKEN), y.reshape(-1))
        (loss * x.size(1) / batch_size).backward()
    opt.step()
E2E_DIGEST = [round(float(p.detach().double().sum()), 6) for p in model.parameters()]
print("final", E2E_DIGEST)
