import torch

PAD = 0


class Sentences(torch.utils.data.Dataset):
    """Token sequences of 2..9 tokens, a label each."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        length = 2 + (i * 5) % 8
        return torch.arange(length) % 5 + 1, i % 2


def masked_collate(items):
    """Pads to the batch's longest and hands the model the mask as a key."""
    longest = max(len(tokens) for tokens, _ in items)
    ids = torch.zeros(len(items), longest, dtype=torch.long)
    mask = torch.zeros(len(items), longest)
    for row, (tokens, _) in enumerate(items):
        ids[row, : len(tokens)] = tokens
        mask[row, : len(tokens)] = 1.0
    batch = {"input_ids": ids, "labels": torch.tensor([label for _, label in items])}
    batch["attention_mask"] = mask
    return batch


def bare_collate(items):
    """Pads to the batch's longest; the batch has no mask."""
    longest = max(len(tokens) for tokens, _ in items)
    ids = torch.zeros(len(items), longest, dtype=torch.long)
    for row, (tokens, _) in enumerate(items):
        ids[row, : len(tokens)] = tokens
    return {"input_ids": ids, "labels": torch.tensor([label for _, label in items])}
