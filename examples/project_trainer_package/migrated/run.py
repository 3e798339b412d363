"""Command line: fit the regressor with the Trainer of the trainer package."""

import argparse
import logging

from _dp2ddp import ddp_print, ddp_setup
from trainer.engine import Trainer


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s - %(message)s")
    trainer = Trainer(batch_size=24)
    loss = trainer.fit(args.epochs)
    trainer.save("regressor.pt")
    ddp_print(f"final loss {loss:.4f}")


if __name__ == "__main__":
    main()
