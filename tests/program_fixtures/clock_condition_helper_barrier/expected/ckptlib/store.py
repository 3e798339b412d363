"""Checkpoints saved and loaded by a helper class (the shape of GAN_stability's
CheckpointIO)."""

import os

import torch

from _dp2ddp import DEVICE, ddp_barrier, ddp_is_main


class Checkpoint:
    def __init__(self, model):
        self.model = model

    def save(self, path):
        if ddp_is_main():
            torch.save(self.model.state_dict(), path)

    def save_epoch(self, path):
        if ddp_is_main():
            torch.save(self.model.state_dict(), path)
        ddp_barrier()

    def load(self, path):
        if os.path.exists(path):
            # dp2ddp: DP031 checkpoint loaded without a barrier every rank reaches
            self.model.load_state_dict(torch.load(path, map_location=DEVICE))
