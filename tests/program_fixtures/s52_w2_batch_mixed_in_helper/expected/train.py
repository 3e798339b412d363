"""CutMix pasted in place by a helper of this module, mixup by another module's helper: each
pairs a row with a partner of the whole batch under DataParallel, of one rank's share under
DDP (clovaai/CutMix-PyTorch@2d8eb68's `cutmix`, facebookresearch/mixup-cifar10@eaff31a's
`mixup_data`)."""

import numpy as np
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from mixing import mixup_data


def cutmix(x, y, beta=1.0):
    lam = np.random.beta(beta, beta)
    index = torch.randperm(x.size(0))
    x[:, 4:12] = x[index, 4:12]
    return y, y[index], 0.5


def main():
    ddp_setup()
    torch.manual_seed(0)
    np.random.seed(0)
    with ddp_same_random():
        x = torch.randn(64, 16)
    y = x[:, :4].sum(dim=1, keepdim=True).sin()
    dataset = TensorDataset(x, y)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(16),
        sampler=DistributedSampler(dataset, shuffle=True),
    )
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1))
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
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
        ddp_print(f"epoch {epoch}: loss {loss.item():.4f}")
    ddp_print(
        "weights", " ".join(f"{v:.4f}" for v in model.module[0].weight[0, :4].tolist())
    )


if __name__ == "__main__":
    main()
