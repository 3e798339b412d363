import torch
from torch.utils.data import Dataset

from .util import split_list


class Items(Dataset):
    def __init__(self, ids):
        self.ids = ids

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        k = self.ids[i]
        return torch.full((3,), float(k)), torch.tensor(float(k % 3))


def make_lists(n, split):
    return split_list(list(range(n)), split)


def pairs(n, split=0.75):
    train_ids, test_ids = make_lists(n, split)
    return Items(train_ids), Items(test_ids)


def pairs_seeded(n):
    return Items(list(range(n))), Items([])
