"""A library model that keeps DataParallel's device list (shenweichen/DeepCTR-Torch's
BaseModel): `gpus` is checked against `device`, given to the wrap and multiplies the batch."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


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
            print("parallel running on these gpus:", self.gpus)
            model = torch.nn.DataParallel(model, device_ids=self.gpus)
            batch_size *= len(self.gpus)  # input `batch_size` is batch_size per gpu
        else:
            print(self.device)
        loader = DataLoader(TensorDataset(x, y), shuffle=True, batch_size=batch_size)
        for epoch in range(epochs):
            for xb, yb in loader:
                xb, yb = xb.to(self.device), yb.to(self.device)
                loss = nn.functional.binary_cross_entropy(model(xb), yb)
                optim.zero_grad()
                loss.backward()
                optim.step()
            print("epoch", epoch, "loss", loss.item())
