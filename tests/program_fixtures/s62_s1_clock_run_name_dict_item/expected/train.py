"""A clock-named run stored as an item of a config dict at import, copied into a trainer's
attribute and made a folder in another module (stop 62 s1, round 13 v2-E's leftover): the
item is named by the path through the copy (path_sinks.attribute_flows), its clock read is
rank 0's, one run folder (before: config.py left as written, each rank its own reading:
rank 1 made a second, empty run folder, no warning)."""
import os

import torch

from _dp2ddp import ddp_print, ddp_setup
from config import cfg
from trainer import Trainer

ddp_setup()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    trainer.forward()
    ddp_print("runs %d" % len(os.listdir(cfg["exp_path"])))
    ddp_print("weights %.4f" % sum(p.sum().item() for p in trainer.net.parameters()))
