import torch
from torch.nn.utils.rnn import pad_sequence


class Sentences(torch.utils.data.Dataset):
    """Token sequences of 2..9 tokens, a tag per token (a translation's or tagger's pairs)."""

    def __init__(self, count):
        generator = torch.Generator().manual_seed(0)
        self.items = []
        for i in range(count):
            tokens = torch.randint(1, 12, (2 + (i * 5) % 8,), generator=generator)
            self.items.append((tokens, (tokens * 3) % 7))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]


def pad_pairs(batch):
    """Pads sources and targets to the batch's longest sequence (with token 0)."""
    sources = pad_sequence([x for x, _ in batch], batch_first=True)
    targets = pad_sequence([y for _, y in batch], batch_first=True)
    return sources, targets
