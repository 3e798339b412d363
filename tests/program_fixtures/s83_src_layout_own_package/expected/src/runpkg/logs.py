"""Run folder and log file of the package (no __init__.py: a namespace package)."""
import logging
import os
import time

from runpkg._dp2ddp import ddp_rank0_value


def open_run(name, root="runs"):
    folder = os.path.join(root, ddp_rank0_value(time.strftime, "%Y%m%d-%H%M%S"))
    os.makedirs(folder, exist_ok=True)
    log = logging.getLogger(name)
    log.setLevel(logging.INFO)
    log.addHandler(logging.FileHandler(os.path.join(folder, "train.log")))
    return log
