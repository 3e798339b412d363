"""The config parser builds the run directory before the entry's main() (and ddp_setup()).

As victoresque/pytorch-template@41dc06f (parse_config.py): the run id is a time stamp read
on every rank (it becomes rank 0's: ddp_rank0_value), the directories are made with an
exist_ok the program computes (rank 0 makes them, the others wait: ddp_mkdir), the config
dump is written by rank 0.
"""
import json
import os
import uuid
from datetime import datetime
from pathlib import Path

from _dp2ddp import ddp_is_main, ddp_mkdir, ddp_rank0_value


class ConfigParser:
    def __init__(self, config, run_id=None):
        self._config = config
        save_dir = Path(config["save_dir"])
        if run_id is None:  # time stamp as the default run id
            run_id = ddp_rank0_value(datetime.now).strftime(r"%m%d_%H%M%S")
        self._save_dir = save_dir / "models" / run_id
        self._log_dir = save_dir / "log" / run_id
        exist_ok = run_id == ""
        ddp_mkdir(self.save_dir.mkdir, parents=True, exist_ok=exist_ok)
        ddp_mkdir(self.log_dir.mkdir, parents=True, exist_ok=exist_ok)
        if ddp_is_main():
            with open(self.save_dir / "config.json", "w") as handle:
                json.dump(config, handle)

    @property
    def save_dir(self):
        return self._save_dir

    @property
    def log_dir(self):
        return self._log_dir

    def __getitem__(self, name):
        return self._config[name]


def scratch_dir(root, keep):
    path = os.path.join(root, ddp_rank0_value(uuid.uuid4).hex)
    ddp_mkdir(os.makedirs, path, exist_ok=keep)
    return path
