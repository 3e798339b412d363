import torch


class LabelConverter:
    """Each label gets a start token (0) in front: a batch of rows [n, length + 1]."""

    def __init__(self, classes):
        self.dict = {c: c + 1 for c in range(classes)}

    def encode(self, labels):
        text = torch.zeros(len(labels), len(labels[0]) + 1, dtype=torch.long)
        for i, label in enumerate(labels):
            text[i, 1:] = torch.tensor([self.dict[c] for c in label])
        return text
