import torch
from kit.runner import Runner
from kit.tools import announce
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_print, ddp_setup

ddp_setup()


torch.manual_seed(0)
rows = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
runner = Runner(
    torch.nn.Linear(4, 1),
    DataLoader(
        rows,
        batch_size=ddp_per_rank_batch(8),
        sampler=DdpDistributedSampler(rows, shuffle=False),
    ),
)
announce("start")
runner.fit()
ddp_print("PARAMSUM %.6f" % sum(p.sum().item() for p in runner.net.parameters()))
