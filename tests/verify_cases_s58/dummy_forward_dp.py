"""Stop 57 v3-E (Philip-Bachman/amdim-public@8754ae1): the model runs a dummy batch of 2
through its BatchNorm in __init__, before it wraps itself in DataParallel. verify's per-chunk
BatchNorm (DataParallel's scatter over 2 devices) cut it into chunks of one sample, which
BatchNorm cannot normalise: RUN FAILED, "the original failed under verify's seeding"."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
        self.net(torch.randn(2, 4))  # a dummy batch, as AMDIM sizes its layers
        self.net = nn.DataParallel(self.net)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = DataLoader(data, batch_size=8)
model = Model()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
