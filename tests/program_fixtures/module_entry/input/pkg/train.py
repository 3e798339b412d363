import torch

from .model import build


def main():
    model = build()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        model(torch.randn(4, 2)).sum().backward()
        opt.step()
        print(f"step {step}")


if __name__ == "__main__":
    main()
