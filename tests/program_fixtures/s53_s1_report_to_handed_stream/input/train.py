import sys

import torch
import torch.nn as nn

import scoring

torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
x = torch.randn(8, 4)
y = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])
for step in range(20):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    pred = model(x).argmax(1).tolist()
scoring.report(scoring.counts(pred, y.tolist()), sys.stdout)
scoring.report(scoring.counts(pred[:4], y.tolist()[:4]), out=sys.stderr)
with open("summary.txt", "w") as f:
    scoring.summary(scoring.counts(pred, y.tolist()), f)
print("weights %.4f" % model.module.weight[0].sum().item())
