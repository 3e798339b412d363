import torch
import torch.nn as nn

from models import Block


def main():
    model = nn.DataParallel(Block(norm=True))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.arange(128, dtype=torch.float32).view(8, 1, 4, 4) / 128
    for step in range(2):
        loss = model(data).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.6f}")


if __name__ == "__main__":
    main()
