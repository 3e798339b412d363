import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


def pretrain(model, loader, epochs):
    # dp2ddp: DP012 DataParallel wrap kept under a condition
    if not isinstance(model, DistributedDataParallel):
        # dp2ddp: DP096
        model = DistributedDataParallel(
            model.to(DEVICE), device_ids=DEVICE_IDS, static_graph=True
        )
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(epochs):
        for x, y in loader:
            loss_a = F.mse_loss(model(x, "a"), y)
            loss_b = F.mse_loss(model(x, "b"), -y)
            loss = loss_a + loss_b
            opt.zero_grad()
            loss.backward()
            opt.step()
