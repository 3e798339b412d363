import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import utils

torch.manual_seed(0)
model_dir = "out"
os.makedirs(model_dir, exist_ok=True)
utils.create_csv(model_dir, "losses.csv", ["epoch", "step", "loss"])
utils.save_params(model_dir, {"lr": 0.1})
print(utils.load_params(model_dir))
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randn(8, 1)), batch_size=4)
for epoch in range(2):
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        utils.save_state(model_dir, epoch, step, loss.item())
print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
