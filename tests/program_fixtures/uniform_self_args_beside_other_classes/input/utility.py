import os

import torch


class Checkpoint:
    def __init__(self, args):
        self.args = args
        self.dir = "experiment"
        os.makedirs(self.dir, exist_ok=True)
        self.log = []
        if args.resume:
            self.log = torch.load(os.path.join(self.dir, "log.pt"))

    def save(self, trainer, epoch):
        torch.save(trainer.model.state_dict(), os.path.join(self.dir, "model_latest.pt"))
        self.log.append(epoch)
        torch.save(self.log, os.path.join(self.dir, "log.pt"))

    def load(self):
        return torch.load(os.path.join(self.dir, "model_latest.pt"))
