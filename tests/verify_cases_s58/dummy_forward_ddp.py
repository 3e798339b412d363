"""dummy_forward_dp.py migrated by hand: the dummy batch before the wrap on every rank."""

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
        self.net(torch.randn(2, 4))
        self.net = DistributedDataParallel(self.net)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


dist.init_process_group("gloo")
WORLD_SIZE = dist.get_world_size()
torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = DataLoader(
    data, batch_size=8 // WORLD_SIZE, sampler=DistributedSampler(data, shuffle=False)
)
model = Model()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
