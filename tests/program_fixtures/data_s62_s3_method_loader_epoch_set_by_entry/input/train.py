import torch
import torch.nn as nn

from pairs import Pairs


def main():
    torch.manual_seed(0)
    dataset = Pairs(16)
    data_loader = dataset.get_loader(8, True)
    model = nn.DataParallel(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in data_loader:
            loss = (model(x) - y).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} weight {model.module.weight.sum().item():.6f}")


if __name__ == "__main__":
    main()
