import logging

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from meters_lib import AverageMeter, CountingLoss, TopOneAccuracy

loss_container = AverageMeter(name="loss")
accuracy = TopOneAccuracy()


def train(model, loader, optimizer, criterion):
    loss_container.reset()
    accuracy.reset()
    for x, y in loader:
        optimizer.zero_grad()
        output = model(x)
        loss = nn.functional.cross_entropy(output, y)
        loss.backward()
        optimizer.step()
        epoch_loss = loss_container(loss.item())
        epoch_acc = accuracy.update(output, y)
        last = criterion(output[:, :1], y)
    logging.info("loss %.4f", epoch_loss)
    print("accuracy %.2f last %.4f" % (epoch_acc, last.item()))


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    loader = DataLoader(data, batch_size=4, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        train(model, loader, optimizer, CountingLoss())


if __name__ == "__main__":
    main()
