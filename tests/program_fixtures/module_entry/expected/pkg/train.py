import torch

from pkg._dp2ddp import WORLD_SIZE, ddp_print, ddp_setup

from .model import build


def main():
    ddp_setup()
    model = build()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        (model(torch.randn(4, 2)).sum() * WORLD_SIZE).backward()
        opt.step()
        ddp_print(f"step {step}")


if __name__ == "__main__":
    main()
