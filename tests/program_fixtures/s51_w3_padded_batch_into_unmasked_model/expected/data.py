import torch

PAD = 5


class Sentences(torch.utils.data.Dataset):
    """Token sequences of 2..9 tokens (0..4), a class per sequence."""

    def __init__(self, count):
        generator = torch.Generator().manual_seed(0)
        self.items = []
        for i in range(count):
            length = 2 + (i * 5) % 8
            tokens = torch.randint(0, 5, (length,), generator=generator)
            self.items.append((tokens, int(tokens[0]) % 2))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]


def _pad_tensor(vec, pad, val):
    """`vec` padded with `val` to `pad` entries."""
    pad_size = list(vec.size())
    pad_size[0] = pad - vec.size(0)
    return torch.cat([vec, vec.new(*pad_size).fill_(val)])


class PadCollate:
    """Pads each batch's sequences to its longest, with the pad token."""

    def __call__(self, batch):
        longest = max(len(x) for x, _ in batch)
        tokens = torch.stack([_pad_tensor(x, longest, PAD) for x, _ in batch])
        labels = torch.tensor([y for _, y in batch])
        return tokens, labels
