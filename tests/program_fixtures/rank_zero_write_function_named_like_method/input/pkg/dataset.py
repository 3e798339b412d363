import torch


class Frames(torch.utils.data.Dataset):
    def __init__(self, ids):
        self.ids = list(ids)
        self.cache = [None] * len(self.ids)

    def load_all(self):
        for i in range(len(self.ids)):
            self.load_data(i)

    def load_data(self, index):
        if self.cache[index] is None:
            self.cache[index] = torch.full((4,), float(self.ids[index]))
        return self.cache[index]

    def __getitem__(self, index):
        return self.load_data(index)

    def __len__(self):
        return len(self.ids)
