"""Class v1-F of stop 39 (BangLiu/QANet-PyTorch@0ce11ca): the evaluation loader is built by
the training loader's factory (data.py) and handed to a trainer class (trainer.py) that
iterates it in a no_grad() method, its figures choosing the best epoch; a held-out loader built
here is handed to trainer.evaluate(). Each loader's role comes from the loops that consume
it, not from its shuffle flag: the training loader, in order, is sharded (its loop trains);
the dev loader, shuffled, and the held-out loader, shuffled, stay whole (their loops evaluate,
DP015), so every rank scores all of each and prints the original's figures."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from data import get_loader
from trainer import Trainer, evaluate


def main():
    torch.manual_seed(0)
    x = torch.randn(64, 4)
    y = (x[:, 0] + 0.5 * torch.randn(64) > 0).long()
    train_loader = get_loader(x[:32], y[:32], 8, shuffle=False)
    dev_loader = get_loader(x[32:48], y[32:48], 4, shuffle=True)
    held_out = DataLoader(TensorDataset(x[48:], y[48:], torch.arange(16)), 4, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
    Trainer(model, optimizer, train_loader, dev_data_loader=dev_loader, epochs=2).train()
    print("test accuracy %.2f" % evaluate(model, held_out))


if __name__ == "__main__":
    main()
