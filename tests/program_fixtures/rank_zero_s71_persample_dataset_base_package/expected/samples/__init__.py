"""The package's base of its file sets: a torch Dataset under a name that does not say so."""
import torch.utils.data as tdata


class BaseFrameSet(tdata.Dataset):
    def __init__(self, root, groups):
        self.root = root
        self.groups = groups

    def __len__(self):
        return len(self.groups)
