# A dataset reading its ids file through a name bound in an if/elif chain: a read of the
# file at `unlabeled_id_path` (class v1-F of stop 42).
import torch
from torch.utils.data import Dataset


class IdDataset(Dataset):
    def __init__(self, mode, labeled_id_path=None, unlabeled_id_path=None):
        if mode == "val":
            id_path = "val.txt"
        elif mode == "label":
            id_path = unlabeled_id_path
        else:
            id_path = labeled_id_path
        with open(id_path) as f:
            self.ids = f.read().splitlines()

    def __getitem__(self, i):
        return torch.full((4,), float(len(self.ids[i]))), torch.zeros(1)

    def __len__(self):
        return len(self.ids)
