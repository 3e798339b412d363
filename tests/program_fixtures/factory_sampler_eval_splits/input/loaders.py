"""One loader factory for every split, with a sampler of its own; the split decides only
`drop_last` (the shape of class v2-E of stop 41)."""

from torch.utils.data import DataLoader, RandomSampler


def build_loader(dataset, batch_size, split):
    sampler = RandomSampler(dataset)
    if split == "train":
        return DataLoader(dataset, sampler=sampler, batch_size=batch_size, drop_last=True)
    return DataLoader(dataset, sampler=sampler, batch_size=batch_size)
