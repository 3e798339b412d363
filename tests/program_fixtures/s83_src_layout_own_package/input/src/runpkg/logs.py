"""Run folder and log file of the package (no __init__.py: a namespace package)."""
import logging
import os
import time


def open_run(name, root="runs"):
    folder = os.path.join(root, time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(folder, exist_ok=True)
    log = logging.getLogger(name)
    log.setLevel(logging.INFO)
    log.addHandler(logging.FileHandler(os.path.join(folder, "train.log")))
    return log
