import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from losses import MarginSum
from model import AutoEncoder


def main():
    torch.manual_seed(0)
    model = AutoEncoder()
    model = nn.DataParallel(model)
    hinge = MarginSum()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data = TensorDataset(torch.randn(8, 5, 3), torch.randint(0, 2, (8,)).float() * 2 - 1)
    loader = DataLoader(data, batch_size=4, shuffle=False)
    for epoch in range(2):
        for clouds, labels in loader:
            rebuilt, scores = model(clouds)
            loss = model.module.get_loss(clouds, rebuilt)
            loss = loss + hinge(scores, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, round(loss.item(), 5))
    print("weights %.5f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
