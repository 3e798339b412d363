import argparse
import importlib

import torch

from _dp2ddp import ddp_is_main, ddp_print, ddp_setup

EXPERIMENT = "pose"


def train(func, data_func, config):
    for epoch in range(config["train"]["epochs"]):
        for batch in data_func("train"):
            loss = func(batch)
        ddp_print("epoch", epoch, "loss", loss)


def init():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    opt = parser.parse_args()
    task = importlib.import_module(f"task.{EXPERIMENT}")
    config = task.__config__
    config["opt"] = opt
    config["data_provider"] = importlib.import_module(config["data_provider"])
    return task.make_network(config), config


def main():
    ddp_setup()
    func, config = init()
    data_func = config["data_provider"].init(config)
    train(func, data_func, config)
    if ddp_is_main():
        torch.save(config["net"].state_dict(), "checkpoint.pt")


if __name__ == "__main__":
    main()
