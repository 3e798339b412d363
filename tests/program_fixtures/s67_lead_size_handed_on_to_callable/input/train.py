"""Issue 28, round 20 (stop 67: bubbliiiing/facenet-pytorch's fit_one_epoch and
triplet_loss): the loader's batch size handed with the loader to another module's
training function, which hands it on to a loss closure of a third module (fit.py)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from fit import fit_one_epoch
from losses import triplet_loss


def collate(batch):
    triplets = torch.stack([b[0] for b in batch])
    return (torch.cat([triplets[:, 0], triplets[:, 1], triplets[:, 2]]),)


torch.manual_seed(0)
batch_size = 12
data = TensorDataset(torch.randn(16, 3, 8))
loader = DataLoader(data, batch_size=batch_size // 3, shuffle=False, collate_fn=collate)
model = nn.DataParallel(nn.Linear(8, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    fit_one_epoch(model, loader, opt, triplet_loss(), batch_size // 3)
print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
