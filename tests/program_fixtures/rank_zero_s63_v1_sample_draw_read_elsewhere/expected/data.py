"""A Dataset drawing one of each sample's files and reading it through another module."""
import random

import torch
from torch.utils.data import Dataset

from utils.io import read_frame


class Frames(Dataset):
    def __init__(self, root, groups):
        self.root = root
        self.groups = groups

    def __len__(self):
        return len(self.groups)

    def __getitem__(self, index):
        name = random.choice(self.groups[index])
        frame = torch.from_numpy(read_frame(self.root, name))
        return frame, frame[0] == index
