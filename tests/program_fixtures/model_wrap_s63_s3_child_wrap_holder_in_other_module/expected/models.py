"""The holder of program fixture model_wrap_s63_s3_child_wrap_holder_in_other_module."""

import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc(x)


class CrowdCounter(nn.Module):
    def __init__(self, gpus):
        super(CrowdCounter, self).__init__()
        self.CCN = Net()
        self.CCN = DistributedDataParallel(self.CCN.to(DEVICE), device_ids=DEVICE_IDS)
        self.loss_mse_fn = nn.MSELoss().to(DEVICE)

    @property
    def loss(self):
        return self.loss_mse

    def forward(self, img, gt_map):
        density_map = self.CCN(img)
        self.loss_mse = self.loss_mse_fn(density_map.squeeze(), gt_map.squeeze())
        return density_map
