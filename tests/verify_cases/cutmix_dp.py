"""verify case, original: CutMix drawn by a helper inside the training loop.

The shape of clovaai/CutMix-PyTorch@2d8eb68's train loop: each step draws a mixing ratio
(np.random.beta) and a permutation (torch.randperm), then pastes a box of the permuted
batch into the loaded batch in place (`rand_bbox`, np.random.randint). Under torchrun every
rank draws its own values, so the updates cannot match DataParallel's, while the DataLoader
is split right: verify must name the draws, not the batch size.
"""

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def rand_bbox(width, lam):
    cut = int(width * np.sqrt(1.0 - lam))
    centre = np.random.randint(width)
    return max(centre - cut // 2, 0), min(centre + cut // 2, width)


def cutmix(x, y, beta=1.0):
    """Paste a box of other samples into x (in place); the targets and their weight."""
    lam = np.random.beta(beta, beta)
    index = torch.randperm(x.size(0))
    low, high = rand_bbox(x.size(1), lam)
    x[:, low:high] = x[index, low:high]
    return y, y[index], 1.0 - (high - low) / x.size(1)


def main():
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(64, 16, generator=generator)
    y = x[:, :4].sum(dim=1, keepdim=True).sin()
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1))
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        for inputs, target in loader:
            target_a, target_b, lam = cutmix(inputs, target)
            output = model(inputs)
            loss = criterion(output, target_a) * lam + criterion(output, target_b) * (1 - lam)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
