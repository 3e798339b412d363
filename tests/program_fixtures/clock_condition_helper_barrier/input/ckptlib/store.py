"""Checkpoints saved and loaded by a helper class (the shape of GAN_stability's
CheckpointIO)."""

import os

import torch


class Checkpoint:
    def __init__(self, model):
        self.model = model

    def save(self, path):
        torch.save(self.model.state_dict(), path)

    def save_epoch(self, path):
        torch.save(self.model.state_dict(), path)

    def load(self, path):
        if os.path.exists(path):
            self.model.load_state_dict(torch.load(path))
