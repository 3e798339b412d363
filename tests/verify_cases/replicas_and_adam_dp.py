"""verify case, original: two models trained side by side on each batch (issue 16).

- `blocks`: ResNeXt-style blocks (prlz77/ResNeXt.pytorch@39fb8d0's shape: grouped
  convolutions, BatchNorm after each, in-place ReLU, a residual), SGD with Nesterov momentum.
  Emulated per BatchNorm only, the original ran every other layer over the whole batch where
  the ranks run their chunk; BatchNorm over chunks of 8 amplified that rounding to a relative
  error of ~4e-2 by step 3 ("no known cause matched"). verify now runs this forward chunk by
  chunk as DataParallel's replicas: EQUIVALENT.
- `head`: a convolution whose bias partly feeds an InstanceNorm (which cancels those bias
  elements: their gradient is float noise), Adam (yhenon/pytorch-retinanet@0348a9d's
  optimizer, no BatchNorm in training mode: the forward runs over the whole batch). Adam's
  m / (sqrt(v) + eps) turns the noise into update differences up to lr while the
  gradients agree to rounding: judged on its gradients, EQUIVALENT with a note.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Block(nn.Module):
    def __init__(self, channels, groups):
        super().__init__()
        self.reduce = nn.Conv2d(channels, 8, 1, bias=False)
        self.bn_reduce = nn.BatchNorm2d(8)
        self.conv = nn.Conv2d(8, 8, 3, padding=1, groups=groups, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.expand = nn.Conv2d(8, channels, 1, bias=False)
        self.bn_expand = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = F.relu(self.bn_reduce(self.reduce(x)), inplace=True)
        out = F.relu(self.bn(self.conv(out)), inplace=True)
        return F.relu(x + self.bn_expand(self.expand(out)), inplace=True)


class Blocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(16)
        self.blocks = nn.Sequential(Block(16, 2), Block(16, 2))
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        out = self.blocks(F.relu(self.bn(self.stem(x)), inplace=True))
        return self.fc(F.avg_pool2d(out, 16).flatten(1))


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.norm = nn.InstanceNorm2d(8)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        out = self.conv(x)
        out = torch.cat([self.norm(out[:, :8]), out[:, 8:]], 1)
        return self.fc(F.relu(out).mean((2, 3)))


def main():
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(64, 3, 16, 16, generator=generator)
    y = torch.randint(0, 4, (64,), generator=generator)
    blocks, head = Blocks(), Head()
    if torch.cuda.device_count() > 1:
        blocks, head = nn.DataParallel(blocks), nn.DataParallel(head)
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    sgd = torch.optim.SGD(
        blocks.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4, nesterov=True
    )
    adam = torch.optim.Adam(head.parameters(), lr=1e-3)
    for epoch in range(2):
        for inputs, targets in loader:
            sgd.zero_grad()
            F.cross_entropy(blocks(inputs), targets).backward()
            sgd.step()
            adam.zero_grad()
            F.cross_entropy(head(inputs), targets).backward()
            adam.step()
        print(f"epoch {epoch}")


if __name__ == "__main__":
    main()
