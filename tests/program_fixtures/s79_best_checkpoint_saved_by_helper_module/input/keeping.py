import shutil

import torch


def keep(state, best, folder):
    last = f"{folder}/last.pt"
    torch.save(state, last)
    if best:
        shutil.copyfile(last, f"{folder}/best.pt")
