"""A model built from a custom layer that owns its weights as nn.Parameter.

From "How can PyTorch DataParallel be used with a custom model?": because MyCustomLayer
registers `weight` and `bias` as nn.Parameter, DataParallel (and DDP) replicate and update
them like any built-in layer. The model is wrapped unconditionally, as many scripts do.
"""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)

ddp_setup()


class MyCustomLayer(nn.Module):
    def __init__(self, in_features, out_features):
        super(MyCustomLayer, self).__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features) * 0.1)
        self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, x):
        return torch.mm(x, self.weight) + self.bias


class MyModel(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super(MyModel, self).__init__()
        self.custom_layer = MyCustomLayer(input_size, hidden_size)
        self.relu = nn.ReLU()
        self.linear = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        x = self.custom_layer(x)
        x = self.relu(x)
        x = self.linear(x)
        return x


def make_blobs(num_samples, input_size, num_classes):
    """Gaussian blobs around random class centres: an easy, learnable classification task."""
    with ddp_same_random():
        centres = torch.randn(num_classes, input_size) * 2.0
        labels = torch.randint(0, num_classes, (num_samples,))
        points = centres[labels] + torch.randn(num_samples, input_size)
    return TensorDataset(points, labels)


torch.manual_seed(0)
input_size, hidden_size, num_classes = 10, 32, 3
device = DEVICE

with ddp_same_random():
    dataset = make_blobs(600, input_size, num_classes)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(64),
    sampler=DistributedSampler(dataset, shuffle=True, drop_last=True),
    drop_last=True,
)

model = MyModel(input_size, hidden_size, num_classes)
model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)  # use every visible GPU
model.to(device)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(4):
    loader.sampler.set_epoch(epoch)
    total_loss, correct, seen = 0.0, 0, 0
    for inputs, labels in loader:
        inputs, labels = inputs.to(device), labels.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * inputs.size(0)
        correct += (outputs.argmax(dim=1) == labels).sum().item()
        seen += inputs.size(0)
    # dp2ddp: DP030 running figure printed from this rank's shard
    ddp_print(f"epoch {epoch} loss {total_loss / seen:.4f} train acc {correct / seen:.3f}")

custom = model.module.custom_layer
if ddp_is_main():
    print(f"custom layer weight norm {custom.weight.norm().item():.4f}")
    print(f"final loss {loss.item():.4f}")
