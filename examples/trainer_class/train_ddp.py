"""A Trainer class that owns a DataParallel model, clips gradients and sums its loss.

From "How can I update parameters when training a PyTorch model with DataParallel on
multiple GPUs?" (examples 1 and 3): DataParallel averages nothing by itself, gradients of
the gathered loss flow back to the one set of parameters, and clip_grad_norm_ runs after
backward on those. The loss here is a sum over the batch (reduction="sum"), which DDP's
gradient averaging scales differently: the migration backpropagates it times WORLD_SIZE.
"""

import os

import torch
import torch.nn as nn
import torch.nn.utils as nn_utils
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset, random_split
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    WORLD_SIZE,
    ddp_all_reduce_sum,
    ddp_eval_sampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)


class MLP(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_features, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Tanh(),
            nn.Linear(hidden, out_features),
        )

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, model, train_loader, val_loader, lr=1e-3, max_norm=1.0):
        self.device = DEVICE
        self.model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
        self.model.to(self.device)
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.criterion = nn.MSELoss(reduction="sum")
        self.optimizer = optim.SGD(self.model.parameters(), lr=lr, momentum=0.9)
        self.max_norm = max_norm

    def train_epoch(self):
        self.model.train()
        total = 0.0
        for inputs, labels in self.train_loader:
            inputs, labels = inputs.to(self.device), labels.to(self.device)
            self.optimizer.zero_grad()
            outputs = self.model(inputs)
            loss = self.criterion(outputs, labels)
            (loss * WORLD_SIZE).backward()
            nn_utils.clip_grad_norm_(self.model.parameters(), max_norm=self.max_norm)
            self.optimizer.step()
            total += loss.item()
        total = ddp_all_reduce_sum(total)
        return total / len(self.train_loader.dataset)

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        total = 0.0
        for inputs, labels in self.val_loader:
            inputs, labels = inputs.to(self.device), labels.to(self.device)
            total += self.criterion(self.model(inputs), labels).item()
        total = ddp_all_reduce_sum(total)
        return total / len(self.val_loader.dataset)

    def save(self, path):
        model = self.model.module if isinstance(self.model, DistributedDataParallel) else self.model
        if ddp_is_main():
            torch.save(model.state_dict(), path)

    def fit(self, num_epochs):
        for epoch in range(num_epochs):
            self.train_loader.sampler.set_epoch(epoch)
            train_loss = self.train_epoch()
            val_loss = self.validate()
            ddp_print(f"epoch {epoch}: train mse {train_loss:.4f} val mse {val_loss:.4f}")
        return val_loss


def main():
    ddp_setup()
    torch.manual_seed(0)
    x = torch.rand(800, 3) * 4 - 2
    y = torch.stack([torch.sin(x[:, 0]) * x[:, 1], torch.cos(x[:, 2])], dim=1)
    train_set, val_set = random_split(
        TensorDataset(x, y), [640, 160], generator=torch.Generator().manual_seed(0)
    )
    train_loader = DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(32),
        sampler=DistributedSampler(train_set, shuffle=True),
    )
    val_loader = DataLoader(
        val_set,
        batch_size=ddp_per_rank_batch(64),
        sampler=ddp_eval_sampler(val_set),
    )

    trainer = Trainer(MLP(3, 64, 2), train_loader, val_loader, lr=1e-2)
    val_loss = trainer.fit(num_epochs=4)

    path = "mlp_checkpoint.pt"
    trainer.save(path)
    if ddp_is_main():
        print(f"saved {path} ({os.path.getsize(path) // 1024} KiB)")
        print(f"final loss {val_loss:.4f}")


if __name__ == "__main__":
    main()
