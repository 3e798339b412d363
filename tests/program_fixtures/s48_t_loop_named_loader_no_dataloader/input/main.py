"""A training loop over `self.loaders["train"]`, a source no binding of trainer.py gives, in a
program that builds no DataLoader: the constructor is handed a dict of lists of batches. The
loop goes through every batch on every rank (nothing shards it): its printed figures are
the whole data's, no DP030 (stop 47's v3-A rule read the name alone and said "summed over
this rank's batches only"). The rule keeps its DP030 where the program builds a DataLoader
(program fixture figures_unheld_loader_routes)."""
import torch
import torch.nn as nn

from trainer import Trainer

torch.manual_seed(0)
x = torch.randn(32, 6)
y = x.sum(1, keepdim=True)
batches = [(x[i : i + 8], y[i : i + 8]) for i in range(0, 32, 8)]
model = nn.DataParallel(nn.Linear(6, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
trainer = Trainer(model, opt, {"train": batches, "val": batches[:1]})
for epoch in range(2):
    trainer.train_epoch()
print("weights %.4f" % model.module.weight.sum().item())
