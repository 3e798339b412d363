"""Keeps the best model seen so far on disk (our own, after an early-stopping helper)."""
import os

import torch


class BestKeeper:
    def __init__(self, folder):
        self.folder = folder
        self.best = None
        os.makedirs(folder, exist_ok=True)

    def path(self):
        return os.path.join(self.folder, "best.pt")

    def __call__(self, score, model):
        if self.best is None or score < self.best:
            self.best = score
            torch.save(model.state_dict(), self.path())
