"""One loader per requested mode, appended in a loop and returned as a list (class b3-A of
stop 49's second validation round, WenbinLee/DN4@440857b's get_Fewshot_dataloader): the
validation loader is shuffled "to see progress"."""
import torch
from torch.utils.data import DataLoader, TensorDataset


def get_loaders(sizes, modes):
    loaders = []
    for mode in modes:
        dataset = TensorDataset(torch.randn(sizes[mode], 4), torch.randn(sizes[mode], 1))
        if mode == "train":
            loader = DataLoader(dataset, batch_size=4, shuffle=True)
        elif mode == "val":
            loader = DataLoader(dataset, batch_size=4, shuffle=True)
        else:
            loader = DataLoader(dataset, batch_size=4, shuffle=False)
        loaders.append(loader)
    return loaders
