"""Clock reads that name shared paths, made rank 0's (`ddp_rank0_value`), reached on the
ranks along other lines (stop 41's v2-D, songyingxin/Bert-TextClassification@284b632).

The writer's time-stamped log directory: migrated as `SummaryWriter(...) if ddp_is_main()
else DdpNullWriter(...)`, its arguments written twice, rank 1 read the stamp on other lines
than rank 0 and waited 60 s per read for values rank 0 had stored under other keys. And
`run_name()`, called for a log file rank 0 alone writes and for a directory every rank
makes a second later: keyed by its own line, rank 1's first call took rank 0's first
value, the log's stamp, and made a second directory.
"""

import os
import time

import torch
import torch.nn as nn
from tensorboardX import SummaryWriter
from torch.utils.data import DataLoader, TensorDataset


def run_name():
    return time.strftime("%H%M%S")


torch.manual_seed(0)
writer = SummaryWriter(log_dir="logs/" + time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime(time.time())))
log = open("log_" + run_name() + ".txt", "w")
time.sleep(1.1)
out = "out_" + run_name()
os.makedirs(out, exist_ok=True)
model = nn.DataParallel(nn.Linear(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(16, 4), torch.randn(16, 2)), batch_size=4)
for x, y in loader:
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    writer.add_scalar("loss", loss.item())
    log.write("%.4f\n" % loss.item())
log.close()
writer.close()
torch.save(model.state_dict(), os.path.join(out, "model.pth"))
