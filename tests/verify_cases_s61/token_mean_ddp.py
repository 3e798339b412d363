"""token_mean_dp.py migrated wrongly, twice: each rank divides its share's sum by its own
share's token count and DDP averages the ranks' gradients (every token weighted by its rank's
count: the updates differ from step 1); and at the third step the batch reaching the model
is no longer the loaded one (scaled: a batch mismatch from step 3, after the divergence)."""

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo")
torch.manual_seed(0)
tokens = torch.randn(24, 6, 4)
lengths = torch.tensor([6, 1, 2, 6, 3, 1, 5, 2] * 3)
mask = (torch.arange(6)[None, :] < lengths[:, None]).float()
data = TensorDataset(tokens, torch.randn(24, 6), mask)
loader = DataLoader(
    data, batch_size=8 // dist.get_world_size(), sampler=DistributedSampler(data, shuffle=False)
)
model = DistributedDataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step, (x, y, m) in enumerate(loader):
    if step == 2:
        x = x * 0.5
    per_token = (model(x).squeeze(-1) - y) ** 2 * m
    loss = per_token.sum() / torch.sum(m != 0, dtype=torch.float)
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
