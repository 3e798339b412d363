import torch

from _dp2ddp import ddp_print
from base_trainer import BaseTrainer


class Trainer(BaseTrainer):
    @torch.no_grad()
    def validation(self, epoch):
        error, count = 0.0, 0
        for idx, (x, y) in enumerate(self.val_dataloader["dataset"]):
            error += float((self.model["net"].module(x) - y).abs().mean())
            count += 1
        ddp_print("epoch %d val %.4f over %d" % (epoch, error / count, count))
