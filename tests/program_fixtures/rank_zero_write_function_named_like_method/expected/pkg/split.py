import os

import numpy as np

from _dp2ddp import ddp_barrier, ddp_is_main, ddp_rank0_value


def load_data(root):
    path = os.path.join(root, "split.npy")
    if not ddp_rank0_value(os.path.exists, path):
        os.makedirs(root, exist_ok=True)
        if ddp_is_main():
            np.save(path, np.arange(16))
    ddp_barrier()
    return np.load(path)
