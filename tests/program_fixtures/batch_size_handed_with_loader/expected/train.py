"""A GAN's discriminator step whose targets are built from the global batch size handed to
another module's epoch function beside the loader (bubbliiiing/srgan-pytorch@0f511ff:
`fit_one_epoch(..., gen, ..., batch_size, ...)`, and there `y_real, y_fake =
torch.ones(batch_size), torch.zeros(batch_size)` against `D_model_train(hr_images)`).
Migrated, the loader gives each rank ddp_per_rank_batch(batch_size) samples, so the targets
there are built per rank too (before: 8 targets for 4 outputs, "Using a target size
(torch.Size([8])) that is different to the input size (torch.Size([4]))" on both ranks at
the first step, no warning)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_setup
from fit import fit_one_epoch


def main():
    ddp_setup()
    torch.manual_seed(0)
    batch_size = 8
    ds = TensorDataset(torch.randn(8, 3))
    gen = DataLoader(
        ds,
        sampler=DistributedSampler(ds, shuffle=True, drop_last=True),
        batch_size=ddp_per_rank_batch(batch_size),
        drop_last=True,
    )
    D = nn.Sequential(nn.Linear(3, 1), nn.Sigmoid())
    D_train = DistributedDataParallel(D.to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(D_train.parameters(), lr=0.1)
    for epoch in range(2):
        gen.sampler.set_epoch(epoch)
        fit_one_epoch(D_train, D, opt, nn.BCELoss(), epoch, gen, batch_size)


if __name__ == "__main__":
    main()
