import torch

from net import MODEL


def main():
    out = MODEL(torch.randn(3, 2))
    print(out.shape)


if __name__ == "__main__":
    main()
