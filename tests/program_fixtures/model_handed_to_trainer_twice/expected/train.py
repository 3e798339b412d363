"""Stop 44, helper v1, class v1-C (zhunzhong07/ECN@5c5c177): the model is wrapped here and
handed to trainers.Trainer, which runs it twice before one backward (before: no warning,
both ranks failed at step 1, "Expected to mark a variable ready only once"); DP072 now."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from trainers import Trainer

ddp_setup()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 4)
        self.classifier = nn.Linear(4, 3)

    def forward(self, x, output=None):
        f = self.body(x)
        if output == "feat":
            return f
        return self.classifier(f)


torch.manual_seed(0)
# dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
model = DistributedDataParallel(
    Net().to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
g = torch.Generator().manual_seed(1)
source_dataset = torch.utils.data.TensorDataset(
    torch.randn(16, 6, generator=g), torch.randint(0, 3, (16,), generator=g)
)
source = torch.utils.data.DataLoader(
    source_dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(source_dataset, shuffle=False),
)
target_dataset = torch.utils.data.TensorDataset(torch.randn(16, 6, generator=g))
target = torch.utils.data.DataLoader(
    target_dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(target_dataset, shuffle=False),
)
Trainer(model).train(source, target, opt)
ddp_print("weight", round(model.module.body.weight.sum().item(), 4))
