import sys

import torch
import torch.nn as nn

from scoring import Logger, Scorer

torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
y = torch.randint(0, 2, (8,))
scorer = Scorer()
log = Logger(sys.stdout, prefix="log ")
for step in range(3):
    out = model(x)
    loss = nn.functional.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    log.write("step %d loss %.4f" % (step, loss.item()))
scorer.update(int((out.argmax(1) == y).sum()), len(y))
scorer.report(sys.stdout)
other = Scorer()
other.update(3, 4)
other.report(out=sys.stderr)
with open("summary.txt", "w") as f:
    scorer.summary(f)
print("weights %.4f" % model.module.weight.sum().item())
