"""An epoch function takes its batches by hand, `next(it)` of `iter(loader)` in a `for`
over a step count, the iterator made again on StopIteration; the loader comes from another
module's factory, which the migration shards (round 33, kampta/PatchVAE@816f4b4 run.py
train()). The epoch's sums, kept by key in an OrderedDict, are this rank's share: DP030
where they are printed and returned (before: no word, rank 0's half printed)."""
from collections import OrderedDict
import torch
import torch.nn as nn
from commons import data_loaders


def train(data_loader, model, optimizer, num_batches):
    losses = OrderedDict()
    losses['loss'] = 0
    data_iterator = iter(data_loader)
    for batch_idx in range(num_batches):
        try:
            x, y = next(data_iterator)
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses['loss'] += loss.item()
        except StopIteration:
            data_iterator = iter(data_loader)
    losses = OrderedDict([(k, v / num_batches) for k, v in losses.items()])
    print('\t'.join('{}: {:0.4f}'.format(k, v) for k, v in losses.items()))
    return losses['loss']


def main():
    torch.manual_seed(0)
    train_loader, test_loader, (width, _), classes, _ = data_loaders(32, batch_size=8)
    model = nn.DataParallel(nn.Linear(width, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        print("epoch", epoch, train(train_loader, model, optimizer, 4))


if __name__ == "__main__":
    main()
