"""A loader in order that no loop of this module iterates, handed to train_model() of
trainer.py, whose loop trains on it: its role comes from that loop, not from its shuffle
flag (class v1-F of stop 39), so it is sharded, and trainer.py does not split its batches
again (before: left whole with DP015's "evaluation" text, its batches split at the model
call). The weights (E2E_DIGEST) are the original's either way."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from trainer import train_model


def main():
    torch.manual_seed(0)
    ds = TensorDataset(torch.arange(16).float().unsqueeze(1), torch.arange(16).float())
    ordered = DataLoader(ds, batch_size=4)
    model = nn.DataParallel(nn.Linear(1, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    steps = 0
    for epoch in range(2):
        steps += train_model(model, ordered, opt)
    return [*model.module.weight.view(-1).tolist(), *model.module.bias.tolist(), steps]


if __name__ == "__main__":
    E2E_DIGEST = main()
    print("digest", E2E_DIGEST)
