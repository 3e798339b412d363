"""A loader handed to a method of another module's class whose loop iterates that very
parameter, `learner.train_one_epoch(loader, opt)`, makes one pass per call: the epoch loop
around the call numbers them, set_epoch goes there (stop 47: DP011 said its passes "are not
one per call" and that no epoch loop of this module numbers them). Still DP011, true:
`fit()` runs its own epoch loop over the loader it is handed, and `Learner(model, extra)`
keeps its loader for `train_extra()`: no loop here numbers their passes."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from learner import Learner

torch.manual_seed(0)
x = torch.randn(32, 6)
y = x.sum(1, keepdim=True)
model = nn.DataParallel(nn.Linear(6, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
fit_loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
extra = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
learner = Learner(model, extra)
for epoch in range(2):
    learner.train_one_epoch(loader, opt)
learner.fit(fit_loader, opt, 2)
learner.train_extra(opt)
print("weights %.4f" % model.module.weight.sum().item())
