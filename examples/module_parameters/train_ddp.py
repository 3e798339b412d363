"""Linear regression where the optimizer is built over `model.module.parameters()`.

The pattern from "Why can't I update parameters with torch.nn.DataParallel?": the model is
wrapped only when more than one GPU is visible, and the optimizer is created right after the
wrap from the wrapped model's `.module`. Data comes from a synthetic linear problem.
"""

import torch
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_all_reduce_mean,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)

ddp_setup()


class SimpleLinear(nn.Module):
    def __init__(self, input_size, output_size):
        super(SimpleLinear, self).__init__()
        self.linear = nn.Linear(input_size, output_size)

    def forward(self, x):
        return self.linear(x)


torch.manual_seed(0)

input_size = 10
output_size = 1
batch_size = 32
num_epochs = 5

# y = x @ w + b + noise, with a fixed "true" w so the loss visibly goes down
true_w = torch.randn(input_size, output_size)
features = torch.randn(512, input_size)
targets = features @ true_w + 0.5 + 0.01 * torch.randn(512, output_size)
train_dataset = TensorDataset(features, targets)
train_loader = DataLoader(
    train_dataset,
    batch_size=ddp_per_rank_batch(batch_size),
    sampler=DistributedSampler(train_dataset, shuffle=True),
)

device = DEVICE
model = SimpleLinear(input_size, output_size)

if torch.cuda.device_count() > 1 and ddp_is_main():
    print("Let's use", torch.cuda.device_count(), "GPUs!")
model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
optimizer = optim.SGD(model.module.parameters(), lr=0.05)  # point the optimizer at .module
model.to(DEVICE)

loss_fn = nn.MSELoss()

for epoch in range(num_epochs):
    train_loader.sampler.set_epoch(epoch)
    running_loss = 0.0
    for inputs, labels in train_loader:
        inputs, labels = inputs.to(device), labels.to(device)
        output = model(inputs)
        loss = loss_fn(output, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    running_loss = ddp_all_reduce_mean(running_loss)
    ddp_print(f"epoch {epoch + 1}/{num_epochs} loss {running_loss / len(train_loader):.4f}")

weight = model.module.linear.weight if hasattr(model, "module") else model.linear.weight
if ddp_is_main():
    print(f"learned weight error {torch.dist(weight.detach().cpu().t(), true_w):.4f}")
    print(f"final loss {loss.item():.4f}")
