import argparse

import torch
import torch.nn as nn

from loaders import get_train_loader

parser = argparse.ArgumentParser()
parser.add_argument("--train-batch", type=int, default=4)
args = parser.parse_args()

torch.manual_seed(0)
data = (torch.randn(16, 4), torch.randn(16, 1))
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = get_train_loader(data, batch_size=args.train_batch)
for epoch in range(2):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
print("weights %.4f" % model.module.weight.sum().item())
