"""pytorch_stacked_hourglass's data/MPII/dp.py: the folder goes on sys.path inside init(),
then its sibling is imported by its bare name."""

import os
import sys

import torch


def init(batch_size):
    current_path = os.path.dirname(os.path.abspath(__file__))
    sys.path.append(current_path)
    import ref as ds

    return torch.utils.data.DataLoader(ds.load(), batch_size=batch_size, shuffle=True)
