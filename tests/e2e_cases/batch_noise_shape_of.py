"""Noise shaped like the batch, the shape read from it (princeton-vl/RAFT@3fa0bb0's
`image1 = image1 + stdv * torch.randn(*image1.shape)`, the images unpacked from the loader's
batch by `image1, image2, flow = [x.cuda() for x in data_blob]`), also `torch.rand(x.size())`
and `torch.randn(x.shape)`, with one seed for every rank. Seeded alike, every rank would add
the same noise to its own images (before: DP006). Migrated, each is drawn for the global
batch on rank 0's stream and each rank keeps its rows (ddp_draw_share over
ddp_global_like): E2E_DIGEST is the first step's draws, row by row (rank 0's and rank 1's
differ and together are the original's); verify finds the updates the original's."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(3)
data = TensorDataset(torch.rand(16, 3), torch.rand(16, 3), torch.rand(16, 2))
loader = DataLoader(data, batch_size=8)
model = nn.DataParallel(nn.Linear(6, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
drawn = []
for _epoch in range(2):
    for _i, data_blob in enumerate(loader):
        image1, image2, flow = [x.cpu() for x in data_blob]
        stdv = 0.5
        noise1 = torch.randn(*image1.shape)
        noise2 = torch.rand(image2.size())
        jitter = torch.randn(flow.shape)
        drawn.append(torch.cat([noise1, noise2, jitter], dim=1))
        image1 = (image1 + stdv * noise1).clamp(0.0, 1.0)
        image2 = (image2 + stdv * noise2).clamp(0.0, 1.0)
        loss = ((model(torch.cat([image1, image2], dim=1)) - flow - jitter) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
E2E_DIGEST = [round(v, 5) for v in drawn[0].flatten().tolist()]
