"""Stop 57 v2-A (YuanGongND/ssast@a1a3eec, src/run.py and traintest_mask.py): the entry wraps
a model whose forward() runs one head per task, and hands the wrap to a function of another
module that runs it twice (one task each) before one backward. This module spells no second
call: the base chose find_unused_parameters=True for the wrap (DP041), and the callee's own
`if not isinstance(model, nn.DataParallel)` wrap (static_graph=True, DP096) is skipped for
the model handed in: "marked as ready twice" at the first backward on every rank, no
warning. Now the wrap that runs gets static_graph=True (DP096 names the callee)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from trainer import pretrain


class TwoTaskNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.head_a = nn.Linear(4, 1)
        self.head_b = nn.Linear(4, 1)

    def forward(self, x, task):
        h = torch.relu(self.body(x))
        if task == "a":
            return self.head_a(h)
        return self.head_b(h)


def main():
    ddp_setup()
    torch.manual_seed(0)
    x = torch.randn(16, 4)
    dataset = TensorDataset(x, x.sum(1, keepdim=True))
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = TwoTaskNet()
    # dp2ddp: DP012 DataParallel wrap kept under a condition
    if not isinstance(model, DistributedDataParallel):
        # dp2ddp: DP096
        model = DistributedDataParallel(
            model.to(DEVICE), device_ids=DEVICE_IDS, static_graph=True
        )
    pretrain(model, loader, 2)
    ddp_print("weights %.4f" % sum(p.sum().item() for p in model.module.parameters()))


if __name__ == "__main__":
    main()
