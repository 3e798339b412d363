"""Token rows of uneven length, padded per batch by the collate."""
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class Rows(Dataset):
    def __init__(self, count):
        g = torch.Generator().manual_seed(1)
        sizes = torch.randint(2, 7, (count,), generator=g)
        self.rows = [torch.randint(1, 9, (int(n),), generator=g) for n in sizes]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def pad_rows(rows, pad):
    x = pad_sequence(rows, batch_first=True, padding_value=pad)
    return x, x == pad


def make_loaders(batch_size, pad=0):
    train = DataLoader(
        Rows(24), batch_size=batch_size, shuffle=True, collate_fn=lambda r: pad_rows(r, pad)
    )
    return train, 10
