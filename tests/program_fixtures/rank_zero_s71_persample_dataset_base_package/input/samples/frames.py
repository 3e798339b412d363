"""A Dataset of another module's base class, and a plain class reading a file it picks."""
import os
import random

import numpy as np
import torch

from . import BaseFrameSet


class PickedFrames(BaseFrameSet):
    def __getitem__(self, index):
        k = random.randint(0, len(self.groups[index]) - 1)  # one of the sample's copies
        frame = np.loadtxt(os.path.join(self.root, self.groups[index][k]), dtype=np.float32)
        return torch.from_numpy(frame), torch.tensor(frame[0] == index)


class Probe:
    """No Dataset: the file it picks and reads is one every rank reads."""

    def __init__(self, root):
        self.root = root

    def read(self):
        name = "0_%d.txt" % random.randint(0, 1)
        return np.loadtxt(os.path.join(self.root, name), dtype=np.float32)
