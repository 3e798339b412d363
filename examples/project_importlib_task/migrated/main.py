"""Train the task named by TASK, loaded with importlib; the task's config names its data
module and network class by dotted strings, imported at run time too."""

import argparse
import importlib

import torch

from _dp2ddp import ddp_print, ddp_setup

TASK = "tasks.classify"


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    torch.manual_seed(0)
    task = importlib.import_module(TASK)
    config = task.CONFIG
    feed = importlib.import_module(config["data_provider"])
    model, optimizer = task.make_network(config)
    train_loader = feed.get_loader(config["batch_size"])
    for epoch in range(args.epochs):
        for x, y in train_loader:
            loss = task.train_step(model, optimizer, x, y)
        ddp_print(f"epoch {epoch}: loss {loss:.4f}")
    ddp_print(f"final loss {loss:.4f}")


if __name__ == "__main__":
    main()
