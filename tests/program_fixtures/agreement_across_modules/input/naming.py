"""Run names for train.py (issue 29: a per-rank value across a module boundary)."""
import time
import uuid


def stamp():
    return time.strftime("%Y%m%d-%H%M%S")


def run_name(prefix):
    return f"{prefix}-{stamp()}"


def trial_id():
    tag = uuid.uuid4().hex[:6]
    return tag
