"""train_model() of trainer.py is given a shuffled training loader and, for a fine-tuning
pass, a loader in order that no loop of this module iterates. Its loop steps only under its
`train` flag (one loop for both passes, class E1): it is not proved to train on what it is
given, so each loader keeps the role its flag gives it, said at each call (DP084): the
shuffled one is sharded, the other left whole. One function cannot split one's batches and
not the other's, so DP077 names both calls."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from trainer import train_model


def main():
    ds = TensorDataset(torch.arange(16).float().unsqueeze(1), torch.arange(16).float())
    batches = DataLoader(ds, batch_size=4, shuffle=True)
    extra = DataLoader(ds, batch_size=4)
    model = nn.DataParallel(nn.Linear(1, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(2):
        train_model(model, batches, opt)
    train_model(model, db_gen=extra, opt=opt)


if __name__ == "__main__":
    main()
