import torch
import torch.nn as nn

import feeds


def fit(model, batches, optimizer):
    seen = 0
    for inputs, targets in batches:
        loss = ((model(inputs) - targets) ** 2).mean() / len(inputs)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        seen += len(inputs)
    return seen


torch.manual_seed(0)
model = nn.DataParallel(nn.Sequential(nn.Linear(6, 4), nn.Tanh(), nn.Linear(4, 2)))
opt = torch.optim.SGD(model.parameters(), lr=1.0)
_, batches = feeds.make_feed(4, 12)
for epoch in range(2):
    print("epoch", epoch, "samples", fit(model, batches, opt))
print("weights %.6f" % sum(p.sum().item() for p in model.parameters()))
