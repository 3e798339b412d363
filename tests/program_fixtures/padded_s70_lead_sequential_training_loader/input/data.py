"""Token lists padded with list arithmetic to the batch's longest item."""

import torch

PAD = 0


class Texts(torch.utils.data.Dataset):
    def __init__(self, count):
        generator = torch.Generator().manual_seed(1)
        sizes = torch.randint(3, 12, (count,), generator=generator)
        self.items = [
            (torch.randint(1, 20, (int(n),), generator=generator).tolist(), int(n) % 2)
            for n in sizes
        ]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]


def collate(batch):
    longest = max(len(ids) for ids, _ in batch)
    ids = [ids + [PAD] * (longest - len(ids)) for ids, _ in batch]
    lengths = [len(ids) for ids, _ in batch]
    labels = [label for _, label in batch]
    return torch.LongTensor(ids), torch.LongTensor(lengths), torch.LongTensor(labels)
