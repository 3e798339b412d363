import logging

from _dp2ddp import ddp_setup
from labtools import import_class

ddp_setup()


if __name__ == "__main__":
    logging.getLogger("tasks.report")
    Trainer = import_class("tasks.classify.Trainer")
    Trainer(epochs=2).start()
