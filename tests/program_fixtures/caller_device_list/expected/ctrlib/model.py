"""A library model that keeps DataParallel's device list (shenweichen/DeepCTR-Torch's
BaseModel): `gpus` is checked against `device`, given to the wrap and multiplies the batch."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from ctrlib._dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_print


class TinyCTR(nn.Module):
    def __init__(self, features, device="cpu", gpus=None):
        super().__init__()
        self.device = device
        self.gpus = gpus
        if gpus and str(self.gpus[0]) not in self.device:
            raise ValueError("`gpus[0]` should be the same gpu with `device`")
        self.linear = nn.Linear(features, 1)
        self.to(device)

    def forward(self, x):
        return torch.sigmoid(self.linear(x)).squeeze(-1)

    def fit(self, x, y, batch_size=32, epochs=1):
        model = self.train()
        optim = torch.optim.SGD(self.parameters(), lr=0.1)
        if self.gpus:
            ddp_print("parallel running on these gpus:", self.gpus)
        else:
            ddp_print(self.device)
        # dp2ddp: DP045 device list passed by the caller keeps DataParallel's meaning
        model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
        if self.gpus:
            batch_size *= len(self.gpus)  # input `batch_size` is batch_size per gpu
        dataset = TensorDataset(x, y)
        loader = DataLoader(
            dataset,
            sampler=DistributedSampler(dataset, shuffle=True),
            batch_size=ddp_per_rank_batch(batch_size),
        )
        for epoch in range(epochs):
            loader.sampler.set_epoch(epoch)
            for xb, yb in loader:
                xb, yb = xb.to(self.device), yb.to(self.device)
                loss = nn.functional.binary_cross_entropy(model(xb), yb)
                optim.zero_grad()
                loss.backward()
                optim.step()
            ddp_print("epoch", epoch, "loss", loss.item())
