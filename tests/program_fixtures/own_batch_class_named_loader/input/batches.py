"""The program's own batch source, named like torch's loader (lemonhu/NER-BERT-pytorch's
data_loader.DataLoader, class v2-A of stop 40): a generator method cuts an index list."""

import random

import torch


class DataLoader(object):
    def __init__(self, batch_size, seed):
        self.batch_size = batch_size
        self.seed = seed

    def data_iterator(self, data, shuffle=False):
        order = list(range(data["size"]))
        if shuffle:
            random.seed(self.seed)
            random.shuffle(order)
        for i in range(data["size"] // self.batch_size):
            rows = order[i * self.batch_size : (i + 1) * self.batch_size]
            x = torch.tensor([data["x"][j] for j in rows])
            y = torch.tensor([data["y"][j] for j in rows])
            yield x, y
