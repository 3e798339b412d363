import os

import numpy as np
import torch
from torch.utils.data import Dataset


class Frames(Dataset):
    def __init__(self, root):
        self.files = sorted(os.listdir(root))
        self.root = root

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        x = np.load(os.path.join(self.root, self.files[i]))
        return torch.from_numpy(x).float(), float(x.sum())
