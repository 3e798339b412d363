"""A Dataset and the transform class it is given, side by side (TransUNet@02ef001's shape:
`RandomGenerator.__call__` calls top-level functions drawing from np.random), the transform
built in train.py: DP067 at `self.transform(sample)` in `__getitem__` (fresh round S2)."""
import numpy as np
import torch
from torch.utils.data import Dataset


def random_flip(x):
    axis = np.random.randint(0, 2)
    return np.flip(x, axis=axis).copy()


class RandomGenerator:
    def __call__(self, sample):
        if np.random.random() > 0.5:
            sample["image"] = random_flip(sample["image"])
        return sample


class Slices(Dataset):
    def __init__(self, n, transform=None):
        self.images = np.arange(n * 4, dtype=np.float32).reshape(n, 2, 2)
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        sample = {"image": self.images[i], "label": self.images[i].sum()}
        if self.transform:
            sample = self.transform(sample)
        return torch.from_numpy(sample["image"]).flatten(), torch.tensor([sample["label"]])
