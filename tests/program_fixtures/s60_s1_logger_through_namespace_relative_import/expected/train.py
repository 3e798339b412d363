"""A trainer in a package imports the program's own logger from a sibling folder with no
__init__.py (a namespace package) by a relative import, `from ..util.logger import Logger`
(adntjr4/denoising_practice's shape, stop 59 v1-E). The logger prints and appends to a log
file: it is part of the program, so its prints and its file go to rank 0."""

from _dp2ddp import ddp_setup
from lib60.trainer import Trainer

ddp_setup()


if __name__ == "__main__":
    Trainer().train()
