"""Stand-in for tensorboardX (the test extras install no tensorboard): a SummaryWriter that
makes its log directory and appends one line per value to `values.txt` there."""

import os


class SummaryWriter:
    def __init__(self, log_dir=None, **kwargs):
        self.log_dir = log_dir or "runs"
        os.makedirs(self.log_dir, exist_ok=True)
        self._file = open(os.path.join(self.log_dir, "values.txt"), "a")

    def add_scalar(self, tag, value, step=None):
        self._file.write(f"{tag} {step} {value}\n")

    def close(self):
        self._file.close()
