import torch

PAD = 0


class Frames(torch.utils.data.Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        n = 2 + (i * 5) % 8
        return torch.arange(n, dtype=torch.float) / 8, float(i % 3)


def collate(items):
    longest = max(len(x) for x, _ in items)
    xs = torch.zeros(len(items), longest)
    for row, (x, _) in enumerate(items):
        xs[row, : len(x)] = x
    return xs, torch.tensor([y for _, y in items])
