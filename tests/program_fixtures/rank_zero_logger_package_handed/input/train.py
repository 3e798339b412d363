"""A logging package configured here and written through another module's method handed the
package (class v3-G of the stop-41 validation round, fartashf/vsepp@abe382f's
`LogCollector.tb_log(tb_logger, step)`). Configured on rank 0 alone, rank 1 raised "default
logger is not configured" at its first step."""

import tensorboard_logger as tb_logger
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from meters import LogCollector

torch.manual_seed(0)
tb_logger.configure("runs", flush_secs=5)
model = nn.DataParallel(nn.Linear(4, 1))
x = torch.randn(16, 4)
loader = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=4)
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
    logger.tb_log(tb_logger, step=step)
tb_logger.log_value("steps", step)
print("steps", step)
