"""A logging package configured here and written through another module's method handed the
package (class v3-G of the stop-41 validation round, fartashf/vsepp@abe382f's
`LogCollector.tb_log(tb_logger, step)`). Configured on rank 0 alone, rank 1 raised "default
logger is not configured" at its first step."""

import tensorboard_logger as tb_logger
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_discard_dir,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from meters import LogCollector

ddp_setup()


torch.manual_seed(0)
tb_logger.configure("runs" if ddp_is_main() else ddp_discard_dir(), flush_secs=5)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
with ddp_same_random():
    x = torch.randn(16, 4)
dataset = TensorDataset(x, x.sum(1, keepdim=True))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
logger = LogCollector()
step = 0
for xb, yb in loader:
    loss = ((model(xb) - yb) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    step += 1
    logger.update("loss", loss.item())
    # dp2ddp: DP030 running figure printed from this rank's shard
    logger.tb_log(tb_logger, step=step)
if ddp_is_main():
    tb_logger.log_value("steps", step)
    print("steps", step)
