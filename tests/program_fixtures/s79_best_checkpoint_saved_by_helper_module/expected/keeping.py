import shutil

import torch

from _dp2ddp import ddp_is_main


def keep(state, best, folder):
    last = f"{folder}/last.pt"
    if ddp_is_main():
        torch.save(state, last)
    if best and ddp_is_main():
        shutil.copyfile(last, f"{folder}/best.pt")
