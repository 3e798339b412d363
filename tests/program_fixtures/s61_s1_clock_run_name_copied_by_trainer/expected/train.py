"""A clock-named run in a config module imported before the process group exists, copied
into a trainer's attributes and handed to the function that makes the run folder (round
13 v2-E, gjy3035/C-3-Framework@f8e21fa): the name read at import is rank 0's
(ddp_rank0_value needs no process group), one run folder (before: config.py left as
written, each rank its own reading: rank 1 made a second, empty run folder)."""
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
    ddp_print("runs %d" % len(os.listdir(cfg.EXP_PATH)))
    ddp_print("weights %.4f" % sum(p.sum().item() for p in trainer.net.parameters()))
