"""A corpus built and saved by a helper of its own module, called from the entry when the
cache is absent (stop 52 s3's left: a build-and-save helper of another module)."""
import os
import time

import numpy as np

#: A slow disk on rank 0 when launched by torchrun (the original runs with no RANK): the race
#: between rank 0's write and another rank's read made certain for the test.
DELAY = 1.0 if os.environ.get("RANK") == "0" else 0.0


def build_corpus(path, count):
    corpus = np.stack([np.arange(3) * 0.1 + i / count for i in range(count)])
    save_corpus(path, corpus)
    return corpus


def save_corpus(path, corpus):
    time.sleep(DELAY)
    np.save(path, corpus)
