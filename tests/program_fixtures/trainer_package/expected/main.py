"""Train a regressor with the Trainer of lib/."""
import argparse

from _dp2ddp import ddp_setup
from lib.trainer import Trainer


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    trainer = Trainer(batch_size=8)
    trainer.fit(args.epochs)


if __name__ == "__main__":
    main()
