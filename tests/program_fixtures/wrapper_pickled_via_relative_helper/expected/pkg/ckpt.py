"""A checkpoint helper imported relatively (`from .ckpt import save_checkpoint`, W2)."""

import torch

from pkg._dp2ddp import ddp_is_main


def save_checkpoint(epoch, model, optimizer):
    if ddp_is_main():
        torch.save(
            {"epoch": epoch, "model": model, "optimizer": optimizer}, "checkpoint.tar"
        )
