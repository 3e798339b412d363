# A collate_fn pads each batch to its longest item; the mean over the padded frames is
# computed in a criterion module's forward(), called from the training function's loop.
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_print, ddp_setup

LENGTHS = [8, 2, 8, 2, 8, 2, 8, 2]


class Frames(Dataset):
    def __len__(self):
        return len(LENGTHS)

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(LENGTHS[i], 3, generator=g)
        return x, x.flip(1)


def pad_batch(batch):
    longest = max(x.size(0) for x, _ in batch)
    xs = torch.zeros(len(batch), longest, 3)
    ys = torch.zeros(len(batch), longest, 3)
    for i, (x, y) in enumerate(batch):
        xs[i, : len(x)], ys[i, : len(y)] = x, y
    return xs, ys


class FrameLoss(nn.Module):
    def forward(self, predicted, wanted):
        return nn.MSELoss()(predicted, wanted)


def train(model, criterion, loader, opt):
    for feats, targets in loader:
        out = model(feats)
        loss = criterion(out, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(nn.Linear(3, 3).to(DEVICE), device_ids=DEVICE_IDS)
    criterion = FrameLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    dataset = Frames()
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DistributedSampler(dataset, shuffle=True),
        collate_fn=pad_batch,
    )
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        train(model, criterion, loader, opt)
    w = model.module.weight.detach()
    ddp_print("weight checksum %.6f" % w.sum().item())


if __name__ == "__main__":
    main()
