import random

import torch


class Episodes(torch.utils.data.Dataset):
    """Each item is an episode drawn at random (a few-shot task): the index is not used."""

    def __init__(self, count):
        self.count = count

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        classes = random.sample(range(6), 2)
        x = torch.tensor([float(c) for c in classes])
        return x, torch.tensor(classes[0] % 2)


def episode_stream(batch_size):
    """The training stream: an iterator for next(), not a loader to loop over."""
    loader = torch.utils.data.DataLoader(Episodes(1000), batch_size=batch_size, shuffle=False)
    return iter(loader)
