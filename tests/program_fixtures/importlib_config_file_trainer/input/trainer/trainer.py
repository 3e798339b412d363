import torch

from trainer.base import BaseTrainer

torch.set_printoptions(precision=6)


class Trainer(BaseTrainer):
    pass
