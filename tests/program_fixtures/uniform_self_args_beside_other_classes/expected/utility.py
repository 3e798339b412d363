import os

import torch

from _dp2ddp import DEVICE, ddp_barrier, ddp_is_main


class Checkpoint:
    def __init__(self, args):
        self.args = args
        self.dir = "experiment"
        os.makedirs(self.dir, exist_ok=True)
        self.log = []
        if args.resume:
            self.log = torch.load(os.path.join(self.dir, "log.pt"), map_location=DEVICE)

    def save(self, trainer, epoch):
        if ddp_is_main():
            torch.save(
                trainer.model.state_dict(), os.path.join(self.dir, "model_latest.pt")
            )
        ddp_barrier()
        self.log.append(epoch)
        if ddp_is_main():
            torch.save(self.log, os.path.join(self.dir, "log.pt"))
        ddp_barrier()

    def load(self):
        return torch.load(
            os.path.join(self.dir, "model_latest.pt"), map_location=DEVICE
        )
