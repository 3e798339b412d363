"""A collate that pads each batch to its longest sequence with a value other than zero (id 1,
the embedding's padding_idx): the per-rank padding width changes the samples' rows, and what
is not zero cannot be told from content, so verify cannot identify the samples. It says so
(NOT EQUIVALENT on the sharding) and names the collate as the cause, not the DataLoader:
"the loader's collate_fn builds each batch as a whole"."""

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Seqs(Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        lengths = [2, 7, 3, 5, 2, 6, 4, 7, 3, 2, 5, 6]
        self.items = [
            (torch.randint(2, 20, (n,), generator=g), int(torch.randint(0, 2, (1,), generator=g)))
            for n in lengths
        ]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def pad_collate(batch):
    longest = max(len(s) for s, _ in batch)
    x = torch.stack([nn.functional.pad(s, (0, longest - len(s)), value=1) for s, _ in batch])
    return x, torch.tensor([y for _, y in batch])


class Bag(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 4, padding_idx=1)
        self.out = nn.Linear(4, 2)

    def forward(self, x):
        return self.out(self.emb(x).sum(1))


def main():
    torch.manual_seed(0)
    model = nn.DataParallel(Bag())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(Seqs(), batch_size=4, shuffle=True, collate_fn=pad_collate)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
