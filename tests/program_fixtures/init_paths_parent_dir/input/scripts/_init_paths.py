"""Put the project's packages on sys.path (no root marker: the root is this folder)."""

import os.path as osp
import sys
from pathlib import Path


def add_path(path):
    if path not in sys.path:
        sys.path.insert(0, path)


# the package beside the scripts folder (bearpaw/pytorch-pose's layout)
sys.path.insert(0, osp.join(osp.dirname(__file__), ".."))
# and the one in lib/ (HRNet's `add_path(osp.join(this_dir, '..', 'lib'))`)
add_path(str(Path(__file__).resolve().parent.parent / "lib"))
