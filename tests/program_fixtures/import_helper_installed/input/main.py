import logging

from labtools import import_class

if __name__ == "__main__":
    logging.getLogger("tasks.report")
    Trainer = import_class("tasks.classify.Trainer")
    Trainer(epochs=2).start()
