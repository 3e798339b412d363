"""A dataset that reads its whole file when built, at the path it keeps in an attribute,
in a method its `__init__` runs (char-cnn's CreateDataset: `__init__` -> `reset()` ->
`read_rows()`)."""
import torch
from torch.utils.data import Dataset


class TableSet(Dataset):
    def __init__(self, source):
        self.source = source
        self.reset()

    def reset(self):
        self.rows = self.read_rows()

    def read_rows(self):
        with open(self.source) as table:
            return [[float(v) for v in line.split(",")] for line in table]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = torch.tensor(self.rows[i])
        return row[:4], row[4:]
