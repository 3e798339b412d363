import torch
from torch.nn.utils.rnn import pad_sequence


class Tagged(torch.utils.data.Dataset):
    """Sequences of 2..9 frames of 3 features, with one class per sequence."""

    def __init__(self, count):
        generator = torch.Generator().manual_seed(0)
        self.items = [
            (torch.randn(2 + (i * 5) % 8, 3, generator=generator), i % 2) for i in range(count)
        ]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]


def pad_batch(batch):
    inputs = pad_sequence([x for x, _ in batch], batch_first=True)
    return inputs, torch.tensor([label for _, label in batch])
