"""A module function `load_data` (the split written when missing, then read) and a Dataset
method of the same name called in a loop (stop 46, v1-C: AbnerHqC/GaitSet's
data_loader.load_data and DataSet.load_data). The method's call is no call of the function:
train.py calls the function on every rank, so the read waits at a barrier for rank 0's write."""
import torch
import torch.nn as nn

from pkg.dataset import Frames
from pkg.split import load_data

torch.manual_seed(0)
ids = load_data("work_split")
data = Frames(ids)
data.load_all()
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x in torch.utils.data.DataLoader(data, batch_size=4):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("weights %.4f" % model.module.weight.sum().item())
