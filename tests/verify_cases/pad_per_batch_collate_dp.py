"""A collate that pads each batch to its longest sequence (V_pad_per_batch_collate; the
shape of foamliu/Transformer@3d62c69's `pad_collate`). Migrated, each rank pads its own
part to its own longest, so a sample's row has another width than in the original's batch:
verify hashed the padded rows and reported "samples missing, others added" with the cause
"the ranks' batches are not the original's batch". The digests now leave out trailing zero
padding (verify/digest.py): sharding ok, EQUIVALENT (id 0 embeds to zero, so the width
changes no update)."""

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Seqs(Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        lengths = [2, 7, 3, 5, 2, 6, 4, 7, 3, 2, 5, 6]
        self.items = [
            (torch.randint(1, 20, (n,), generator=g), int(torch.randint(0, 2, (1,), generator=g)))
            for n in lengths
        ]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def pad_collate(batch):
    longest = max(len(s) for s, _ in batch)
    x = torch.stack([nn.functional.pad(s, (0, longest - len(s))) for s, _ in batch])
    return x, torch.tensor([y for _, y in batch])


class Bag(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 4, padding_idx=0)
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
