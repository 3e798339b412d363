import torch

from poselib._dp2ddp import ddp_is_main


def log_line(path, text):
    # one line per call (a project logger)
    if ddp_is_main():
        with open(path, "a") as f:
            f.write(text + "\n")


def save_ckpt(state, path):
    if ddp_is_main():
        torch.save(state, path)
