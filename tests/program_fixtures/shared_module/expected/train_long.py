import torch

from _dp2ddp import ddp_is_main, ddp_setup
from shared import build, fit

ddp_setup()


if __name__ == "__main__":
    model = build()
    fit(model, epochs=3)
    if ddp_is_main():
        torch.save(model.state_dict(), "long.pt")
