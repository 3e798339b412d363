"""CutMix pasted in place by a helper of this module, mixup by another module's helper: each
pairs a row with a partner of the whole batch under DataParallel, of one rank's share under
DDP (clovaai/CutMix-PyTorch@2d8eb68's `cutmix`, facebookresearch/mixup-cifar10@eaff31a's
`mixup_data`)."""

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from mixing import mixup_data


def cutmix(x, y, beta=1.0):
    lam = np.random.beta(beta, beta)
    index = torch.randperm(x.size(0))
    x[:, 4:12] = x[index, 4:12]
    return y, y[index], 0.5


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    x = torch.randn(64, 16)
    y = x[:, :4].sum(dim=1, keepdim=True).sin()
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1))
    model = nn.DataParallel(model)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for inputs, target in loader:
            if epoch == 0:
                target_a, target_b, lam = cutmix(inputs, target)
            else:
                inputs, target_a, target_b, lam = mixup_data(inputs, target)
            output = model(inputs)
            loss = lam * criterion(output, target_a) + (1 - lam) * criterion(output, target_b)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")
    print("weights", " ".join(f"{v:.4f}" for v in model.module[0].weight[0, :4].tolist()))


if __name__ == "__main__":
    main()
