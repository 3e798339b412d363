"""Issue 28, round 23 across modules (Andrewzh112/codebase@45892e2's shape: vae/loss.py's
VAELoss and vae/main.py): the criterion class is imported from loss.py, whose forward() adds
a mean reconstruction to a KL term its helper method sums over the batch. The sum lies in a
module the program imports (other callers may read it), so it is not rewritten there: DP004
at the loss in train.py names the term through the helper (before: nothing was said)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_setup,
)


class Autoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encode = nn.Linear(5, 4)
        self.decode = nn.Linear(2, 5)

    def forward(self, x):
        stats = self.encode(x)
        mean, log_sigma = stats[:, :2], stats[:, 2:]
        return self.decode(mean), mean, log_sigma


from loss import ElboCriterion


def main():
    ddp_setup()
    torch.manual_seed(3)
    rows = torch.randn(24, 5)
    dataset = TensorDataset(rows)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(6),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(Autoencoder().to(DEVICE), device_ids=DEVICE_IDS)
    criterion = ElboCriterion(0.2)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        for (x,) in loader:
            recon, mean, log_sigma = model(x)
            loss = criterion(x, recon, mean, log_sigma)
            opt.zero_grad()
            loss.backward()
            opt.step()
    net = model.module
    if ddp_is_main():
        print("encode %.6f" % net.encode.weight.abs().sum().item())
        print("decode %.6f" % net.decode.weight.abs().sum().item())


if __name__ == "__main__":
    main()
