import torch


def log_line(path, text):
    # one line per call (a project logger)
    with open(path, "a") as f:
        f.write(text + "\n")


def save_ckpt(state, path):
    torch.save(state, path)
