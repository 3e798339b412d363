"""A seeding helper the entry calls: numpy is seeded alike on every rank, so each rank's
k-th sample gets the same draw: DP067 in data.py (another module's seed counts)."""
import numpy as np


def set_seed(seed):
    np.random.seed(seed)
