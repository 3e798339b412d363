"""A dataset without a Dataset base: each sample cut at a random offset."""
import random

import torch


class RandomCrops:
    def __init__(self, signal, width=4):
        self.signal = signal
        self.width = width

    def __len__(self):
        return len(self.signal)

    def __getitem__(self, index):
        offset = random.randint(0, self.signal.shape[1] - self.width)
        return self.signal[index, offset : offset + self.width], torch.tensor(offset)
