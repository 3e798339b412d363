"""run_folder_asks_dp.py migrated by hand: rank 0 asks and makes the run folder, the others
wait for it (a barrier), each rank trains its quarter of 16 on a DistributedSampler."""

import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo")
RANK, WORLD_SIZE = dist.get_rank(), dist.get_world_size()
run = os.path.join("snapshot", "run")
if RANK == 0:
    if os.path.exists(run):
        if input(f"Remove {run} ? (y/n)") != "y":
            raise SystemExit(1)
    os.makedirs(run, exist_ok=True)
dist.barrier()
torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
loader = DataLoader(data, batch_size=4 // WORLD_SIZE, sampler=DistributedSampler(data))
model = DistributedDataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader.sampler.set_epoch(0)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
if RANK == 0:
    torch.save(model.module.state_dict(), os.path.join(run, "model.pt"))
dist.destroy_process_group()
