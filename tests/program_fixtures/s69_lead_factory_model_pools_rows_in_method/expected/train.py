import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from nets.metric import define_net

ddp_setup()


class Episodes(Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        query = torch.randn(2, 5, generator=g)
        supports = [torch.randn(2, 5, generator=g) for _ in range(2)]
        return query, supports, i % 2


torch.manual_seed(0)
# dp2ddp: DP217 the wrapped model's forward() couples the rows of its batch
model = DistributedDataParallel(define_net().to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
dataset = Episodes()
for query, supports, target in DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
):
    loss = nn.functional.cross_entropy(model(query, supports), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
ddp_print("weights %.6f" % sum(p.sum().item() for p in model.parameters()))
