"""Stand-in for tensorboard_logger (not installed here): `log_value` before `configure`
raises, as the package's default logger does; each value is a line of `values.txt` in the
configured folder."""

import os

_file = None


def configure(logdir, flush_secs=2):
    global _file
    os.makedirs(logdir, exist_ok=True)
    _file = open(os.path.join(logdir, "values.txt"), "a")


def log_value(name, value, step=None):
    if _file is None:
        raise ValueError("default logger is not configured")
    _file.write(f"{name} {step} {float(value):.4f}\n")
    _file.flush()
