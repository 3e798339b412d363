"""Samples named by a dict of paths; the joint transform runs on each sample."""
import os

import numpy as np
import torch
from torch.utils.data import Dataset

from data.io import load_mask


class FramePairs(Dataset):
    def __init__(self, root, n, co_transform=None):
        self.samples = []
        for i in range(n):
            s = {"image": os.path.join(root, f"{i}.txt")}
            s["mask"] = os.path.join(root, f"{i}.txt")
            self.samples.append(s)
        self.co_transform = co_transform

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        s = self.samples[index]
        images = [np.loadtxt(s["image"], dtype=np.float32)]
        target = {"mask": load_mask(s["mask"])}
        if self.co_transform is not None:
            images, target = self.co_transform(images, target)
        image = images[0]  # sample i is 18 - 2i wide: a corner for a wider one may not fit
        shape = torch.tensor(image.shape)
        return torch.from_numpy(np.resize(image, 16)), torch.from_numpy(target["mask"]).mean(), shape
