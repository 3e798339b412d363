"""A checkpoint helper imported relatively (`from .ckpt import save_checkpoint`, W2)."""

import torch


def save_checkpoint(epoch, model, optimizer):
    torch.save({"epoch": epoch, "model": model, "optimizer": optimizer}, "checkpoint.tar")
