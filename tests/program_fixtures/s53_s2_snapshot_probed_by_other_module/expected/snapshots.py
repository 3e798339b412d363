"""Weights exported once an epoch; whether a snapshot is there is asked of the file system
(`os.path.isfile` under the folder the exporter wrote: a read of it)."""
import os
import time

import numpy as np

from _dp2ddp import ddp_is_main

#: A slow disk on rank 0 when launched by torchrun (the original runs with no RANK): the race
#: between rank 0's write and another rank's look made certain for the test.
DELAY = 1.0 if os.environ.get("RANK") == "0" else 0.0


def export_weights(p, module, epoch):
    folder = p["out_dir"]
    os.makedirs(folder, exist_ok=True)
    values = np.concatenate([q.detach().numpy().ravel() for q in module.parameters()])
    time.sleep(DELAY)
    if ddp_is_main():
        np.save(os.path.join(folder, "weights_%d.npy" % epoch), values)


def weights_exported(p, epoch):
    return os.path.isfile(os.path.join(p["out_dir"], "weights_%d.npy" % epoch))
