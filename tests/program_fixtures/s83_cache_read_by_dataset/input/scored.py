# The Dataset reads the score file the training loop writes each epoch, at a path the loop
# hands it through an attribute (round 37, Nanne/pytorch-NetVlad@def998e).
import torch
from torch.utils.data import Dataset


class ScoredPairs(Dataset):
    scores_file = None  # set by the training loop before each epoch

    def __init__(self, inputs, targets):
        self.inputs = inputs
        self.targets = targets

    def __len__(self):
        return len(self.inputs)

    def __getitem__(self, k):
        with open(self.scores_file) as held:
            weight = float(held.read().split()[k])
        return self.inputs[k] * (1.0 + 0.0 * weight), self.targets[k]
