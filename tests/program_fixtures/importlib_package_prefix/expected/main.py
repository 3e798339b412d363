import argparse
from importlib import import_module

import torch

from _dp2ddp import ddp_print, ddp_setup


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="wrapped")
    parser.add_argument("--dataset", default="points")
    args = parser.parse_args()
    model = import_module("models." + args.model.lower()).make_model()
    feeder = f"feeders.{args.dataset}"
    loader = import_module(feeder).loader(32)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        ddp_print(f"epoch {epoch} loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
