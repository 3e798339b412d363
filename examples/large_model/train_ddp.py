"""A wide MLP trained with a small batch: the case where DataParallel's per-step replication
of all parameters dominates the step time.

From "Why is training not starting with nn.DataParallel?" (example 2), scaled down so it
runs in seconds on a CPU. The model moves to the GPU before it is wrapped and the optimizer
is created before the wrap; each step is timed.
"""

import time

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_per_rank_batch, ddp_print, ddp_setup

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

if torch.cuda.device_count() > 1 and ddp_is_main():
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
    ddp_print(f"Step {step + 1}: loss = {loss.item():.4f}, time = {end_time - start_time:.4f} s")

if ddp_is_main():
    print(f"mean step time {sum(step_times) / len(step_times):.4f} s")
    print(f"final loss {loss.item():.4f}")
