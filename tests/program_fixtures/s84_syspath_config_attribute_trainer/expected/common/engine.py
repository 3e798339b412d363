import torch
import torch.nn as nn
from _dp2ddp import DEVICE, DEVICE_IDS
from config import settings
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset


class Engine:
    """Holds the wrapped model and the loader; the entry runs the epochs."""

    def __init__(self):
        g = torch.Generator().manual_seed(0)
        rows = TensorDataset(torch.randn(32, 6, generator=g), torch.randn(32, 1, generator=g))
        # dp2ddp: DP015 evaluation metrics not reduced
        self.batches = DataLoader(rows, batch_size=settings.batch, shuffle=False)
        self.net = DistributedDataParallel(
            nn.Linear(6, 1).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)
