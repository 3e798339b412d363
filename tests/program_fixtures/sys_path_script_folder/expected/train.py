"""The entry puts its helpers' folder on sys.path through sys.path[0], the folder of the script
Python runs (qiuqiangkong/audioset_tagging_cnn@d2f4b8c: `sys.path.insert(1,
os.path.join(sys.path[0], '../utils'))`). The helpers join the program: the folder is made
with exist_ok, the results file written and printed once."""
import os
import sys

from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_setup,
)

sys.path.insert(1, os.path.join(sys.path[0], "utils"))
import torch  # noqa: E402
from helpers import append_result, create_folder  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402


ddp_setup()


create_folder("out")
torch.manual_seed(0)
dataset = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    append_result("out/results.txt", "epoch %d done" % epoch)
