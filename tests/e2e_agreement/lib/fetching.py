"""A stand-in for a dataset library (torchvision's CIFAR10 and the like), on the path of
the agreement e2e launch and never migrated: it is the library, not the program.

`download=True` fetches the data on first use when the file is not there yet, writing it
in pieces as a download does, and records which rank fetched it; then it reads the file,
and a file still being written is an error (torchvision: "File not found or corrupted").
"""

import os
import time

import torch
from torch.utils.data import Dataset

SIZE = 32


class Numbers(Dataset):
    def __init__(self, root, download=False):
        path = os.path.join(root, "numbers.bin")
        if download and not os.path.exists(path):
            os.makedirs(root, exist_ok=True)
            with open(path, "wb") as f:
                for piece in range(4):
                    f.write(bytes(range(piece * 8, piece * 8 + 8)))
                    f.flush()
                    time.sleep(0.15)
            rank = os.environ.get("RANK", "0")
            with open(os.path.join(root, f"fetched_by_rank{rank}"), "w"):
                pass
        with open(path, "rb") as f:
            data = f.read()
        if len(data) != SIZE:
            raise RuntimeError(f"{path}: {len(data)} of {SIZE} bytes (still downloading?)")
        self.x = torch.tensor(list(data), dtype=torch.float32).view(SIZE, 1) / SIZE

    def __len__(self):
        return SIZE

    def __getitem__(self, index):
        return self.x[index], self.x[index] * 2
