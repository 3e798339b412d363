import torch


class Frames(torch.utils.data.Dataset):
    """Sequences of 2..9 frames of 3 features, with a target per frame."""

    def __init__(self, count):
        generator = torch.Generator().manual_seed(0)
        self.items = []
        for i in range(count):
            length = 2 + (i * 5) % 8
            x = torch.randn(length, 3, generator=generator)
            self.items.append((x, x.sum(dim=1, keepdim=True)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]


class PadCollate:
    """Pads each batch to its longest sequence."""

    def __call__(self, batch):
        longest = 0
        for x, _ in batch:
            if len(x) > longest:
                longest = len(x)
        inputs = torch.zeros(len(batch), longest, 3)
        targets = torch.zeros(len(batch), longest, 1)
        for i, (x, y) in enumerate(batch):
            inputs[i, : len(x)] = x
            targets[i, : len(y)] = y
        return inputs, targets
