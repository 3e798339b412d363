import os
import sys

import torch
import torch.nn as nn

# a folder known at run time only: discovery cannot follow it
sys.path.insert(0, os.environ.get("NETLIB_HOME", os.path.join("..", "libs")))
from netlib.io import log_line  # noqa: E402

data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = torch.utils.data.DataLoader(data, batch_size=4, shuffle=True)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    log_line("log.txt", "epoch %d done" % epoch)
