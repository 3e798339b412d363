import torch
import torch.nn as nn
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_setup
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

import _init_paths  # noqa: F401
from poselib.io import log_line, save_ckpt
from poseutils.meter import Meter

ddp_setup()


torch.manual_seed(0)
data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = torch.utils.data.DataLoader(
    data,
    batch_size=ddp_per_rank_batch(4),
    sampler=DistributedSampler(data, shuffle=True),
)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
meter = Meter()
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.update(loss.item())
    log_line("log.txt", "epoch %d done" % epoch)
    save_ckpt(model.state_dict(), "ckpt.pth")
meter.append_to("summary.txt")
