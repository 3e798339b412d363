import torch
from torch import nn

from .ckpt import save_checkpoint


def main():
    model = nn.Linear(4, 2)
    model = nn.DataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        loss = model(torch.ones(4, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        save_checkpoint(epoch, model, optimizer)


if __name__ == "__main__":
    main()
