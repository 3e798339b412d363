from _dp2ddp import ddp_setup
from mylib import import_class

ddp_setup()


if __name__ == "__main__":
    Trainer = import_class("tasks.classify.Trainer")
    Trainer(epochs=2).start()
