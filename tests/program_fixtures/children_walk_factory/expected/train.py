import torch
from torch.nn.parallel import DistributedDataParallel

import nets
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

ddp_setup()


model = nets.create("embed", depth=18)
# dp2ddp: DP041 some parameters may get no gradient: find_unused_parameters=True
model = DistributedDataParallel(
    model.to(DEVICE), device_ids=DEVICE_IDS, find_unused_parameters=True
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 3, 8, 8), torch.randn(8, 4)
for step in range(3):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
ddp_print("done")
