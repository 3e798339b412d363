"""A clock stamp made here names the checkpoint another module's functions save and load
(zoogzog/chexnet@bbe30b5 Main.py:23-57 with ChexnetTrainer.py:104/211): the stamp is handed
to trainer.train(), which saves 'm-' + stamp on rank 0; the path made from it to an
Evaluator's evaluate(), which loads it on every rank. Each rank's clock names its own file:
the stamp must be rank 0's reading on every rank, and the load must wait for the save."""
from datetime import datetime

import trainer
from _dp2ddp import ddp_barrier, ddp_rank0_value, ddp_setup

ddp_setup()


def run():
    stamp = ddp_rank0_value(datetime.now).strftime("%H%M%S%f")
    path = "m-" + stamp + ".pth.tar"
    trainer.train(stamp, 2)
    ddp_barrier()
    trainer.Evaluator().evaluate(path)


if __name__ == "__main__":
    run()
