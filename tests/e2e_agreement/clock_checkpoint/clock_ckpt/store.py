"""A checkpoint helper class (GAN_stability's CheckpointIO): save() is called under each
rank's own clock (train.py), save_epoch() by every rank alike."""

import os

import torch


class Checkpoint:
    def __init__(self, model):
        self.model = model
        self.saves = 0

    def save(self, path):
        self.saves += 1
        torch.save(self.model.state_dict(), path)

    def save_epoch(self, path):
        torch.save(self.model.state_dict(), path)

    def load(self, path):
        if os.path.exists(path):
            self.model.load_state_dict(torch.load(path))
