"""Stop 60 s1's leftover in its program shape (bpowell122/tomodrgn@e19eae9): the model class,
in another module, defines no forward(); the entry trains it through its methods on a
forwarding DataParallel subclass. DP190 at encode() and decode() (before: none, the
class's methods unclassified); latent_size() runs no layer and is left as written."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from models61 import DataParallelPassthrough, HetOnlyVAE

ddp_setup()


torch.manual_seed(0)
model = DataParallelPassthrough(HetOnlyVAE().to(DEVICE), device_ids=DEVICE_IDS)
with ddp_same_random():
    dataset = TensorDataset(torch.randn(16, 4))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    for (x,) in loader:
        # dp2ddp: DP190
        z = model.encode(x)
        # dp2ddp: DP190
        out = model.decode(z)
        loss = ((out - x) ** 2).mean() + 0.0 * model.latent_size()
        opt.zero_grad()
        loss.backward()
        opt.step()
ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
