"""A wide MLP trained with a small batch: the case where DataParallel's per-step replication
of all parameters dominates the step time.

From "Why is training not starting with nn.DataParallel?" (example 2), scaled down so it
runs in seconds on a CPU. The model moves to the GPU before it is wrapped and the optimizer
is created before the wrap; each step is timed.
"""

import atexit
import os
import time
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

# --- dp2ddp: DistributedDataParallel setup. Launch with: torchrun --nproc_per_node=N train.py
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
RANK = int(os.environ.get("RANK", "0"))
WORLD_SIZE = int(os.environ.get("WORLD_SIZE", "1"))
DEVICE = torch.device("cuda", LOCAL_RANK) if torch.cuda.is_available() else torch.device("cpu")
DEVICE_IDS = [LOCAL_RANK] if torch.cuda.is_available() else None


def ddp_setup():
    """Join torchrun's process group (NCCL on GPUs, gloo on CPU); plain python: a world of one."""
    if dist.is_initialized():
        return
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    if torch.cuda.is_available():
        torch.cuda.set_device(LOCAL_RANK)
    if "MASTER_ADDR" in os.environ:
        dist.init_process_group(backend=backend)
    else:
        dist.init_process_group(backend=backend, store=dist.HashStore(), rank=0, world_size=1)
    atexit.register(ddp_cleanup)


def ddp_cleanup():
    """Leave the process group at exit, also when training raised."""
    if dist.is_initialized():
        dist.destroy_process_group()


def ddp_is_main():
    """Rank 0 prints, logs and saves for everyone."""
    return RANK == 0


def ddp_per_rank_batch(batch_size):
    """DataParallel's batch_size was the global batch: each of WORLD_SIZE processes loads a part."""
    per_rank = max(1, batch_size // WORLD_SIZE)
    if batch_size % WORLD_SIZE and RANK == 0:
        warnings.warn(
            f"batch_size={batch_size} does not divide by WORLD_SIZE={WORLD_SIZE}: each process "
            f"loads {per_rank}, so the global batch is {per_rank * WORLD_SIZE}",
            stacklevel=2,
        )
    return per_rank


ddp_setup()


class LargeModel(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(LargeModel, self).__init__()
        self.layers = nn.Sequential(
            nn.Linear(input_size, hidden_size),
            nn.ReLU(),
            nn.Linear(hidden_size, hidden_size),
            nn.ReLU(),
            nn.Linear(hidden_size, hidden_size),
            nn.ReLU(),
            nn.Linear(hidden_size, input_size),
        )

    def forward(self, x):
        return self.layers(x)


torch.manual_seed(0)
input_size = 256  # 10000 in the article
hidden_size = 512  # 5000 in the article
batch_size = 16
num_steps = 12

# Denoising task: recover the clean signal from a noisy copy.
clean = torch.randn(1024, input_size)
noisy = clean + 0.1 * torch.randn_like(clean)
dataset = TensorDataset(noisy, clean)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(batch_size),
    sampler=DistributedSampler(dataset, shuffle=True),
)

model = LargeModel(input_size, hidden_size)
if torch.cuda.is_available():
    model = model.to(DEVICE)

criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

if ddp_is_main():
    print("Using Data Parallel...")
model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)

step_times = []
for step, (input_tensor, target) in enumerate(loader):
    if step >= num_steps:
        break
    if torch.cuda.is_available():
        input_tensor, target = input_tensor.to(DEVICE), target.to(DEVICE)
    start_time = time.time()
    optimizer.zero_grad()
    output = model(input_tensor)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    end_time = time.time()
    step_times.append(end_time - start_time)
    if ddp_is_main():
        print(f"Step {step + 1}: loss = {loss.item():.4f}, time = {end_time - start_time:.4f} s")

if ddp_is_main():
    print(f"mean step time {sum(step_times) / len(step_times):.4f} s")
    print(f"final loss {loss.item():.4f}")
