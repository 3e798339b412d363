"""Early stopping in a module of its own, as an experiment framework keeps it: the object
decides when training stops, and saves the best checkpoint, which train() reloads."""

import os
import time

import numpy as np
import torch


class EarlyStopping:
    def __init__(self, patience=2):
        self.patience = patience
        self.counter = 0
        self.best_score = None
        self.early_stop = False
        self.val_loss_min = np.inf

    def __call__(self, val_loss, model, path):
        score = -val_loss
        if self.best_score is None:
            self.best_score = score
            self.save_checkpoint(val_loss, model, path)
        elif score < self.best_score:
            self.counter += 1
            if self.counter >= self.patience:
                self.early_stop = True
        else:
            self.best_score = score
            self.save_checkpoint(val_loss, model, path)
            self.counter = 0

    def save_checkpoint(self, val_loss, model, path):
        if os.environ.get("RANK") == os.environ.get("E2E_SLOW_RANK", "0"):
            time.sleep(0.5)  # under torchrun: a slow disk on one rank (the e2e's)
        torch.save(model.state_dict(), path + "/" + "checkpoint.pth")
        self.val_loss_min = val_loss
