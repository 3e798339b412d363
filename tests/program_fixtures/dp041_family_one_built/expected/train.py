import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_same_random, ddp_setup
from methods import baseline

ddp_setup()


model = baseline.build(16)
model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with ddp_same_random():
    data = torch.utils.data.TensorDataset(
        torch.randn(16, 8), torch.randint(0, 3, (16,))
    )
loader = torch.utils.data.DataLoader(
    data,
    batch_size=ddp_per_rank_batch(4),
    sampler=DistributedSampler(data, shuffle=True),
)
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
