import torch

from _dp2ddp import ddp_print, ddp_setup

ddp_setup()
from net import MODEL


def main():
    out = MODEL(torch.randn(3, 2))
    ddp_print(out.shape)


if __name__ == "__main__":
    main()
