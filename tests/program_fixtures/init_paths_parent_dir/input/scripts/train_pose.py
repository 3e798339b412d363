import torch
import torch.nn as nn

import _init_paths  # noqa: F401
from poselib.io import log_line, save_ckpt
from poseutils.meter import Meter

torch.manual_seed(0)
data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = torch.utils.data.DataLoader(data, batch_size=4, shuffle=True)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
meter = Meter()
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.update(loss.item())
    log_line("log.txt", "epoch %d done" % epoch)
    save_ckpt(model.state_dict(), "ckpt.pth")
meter.append_to("summary.txt")
