"""A clock-named run stored in a config dict under a key computed at run time (`cfg[KEY] =
datetime.now().strftime(...)`, `KEY = "exp_" + "name"`), read in another module by the same
key into a trainer's attribute and made a folder (stop 63 s2, stop 62 s1's leftover): the
item `[=KEY]` is named by the path through the copy (path_sinks.attribute_flows, a key
by its spelling), its clock read is rank 0's, one run folder (before: config.py left as
written, each rank its own microsecond: rank 1 made a second, empty run folder, no
warning)."""
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
