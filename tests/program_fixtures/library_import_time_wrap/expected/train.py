import torch

from _dp2ddp import ddp_is_main, ddp_setup
from net import MODEL


def main():
    ddp_setup()
    out = MODEL(torch.randn(3, 2))
    if ddp_is_main():
        print(out.shape)


if __name__ == "__main__":
    main()
