"""Stop 52 (helper s1): tensors the optimizer trains that no DDP wrap holds, reached through
modules: `make()` of a.py returns b.py's `build()`; a.py's `Child` and this module's `Twin`
hold the `gain` and the nn.ParameterList `shift` their base `Base` of b.py binds; and all
handed over in parameter-group dicts (`{"params": extra, "lr": ...}`). Each rank would
train its own copies on its share."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from a import Child, make
from b import Base


class Twin(Base):
    def apply(self, h):
        return h + self.gain * self.shift[1]


torch.manual_seed(0)
x = torch.randn(32, 6)
y = x.sum(1, keepdim=True) * 2 + 1
loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=False)
model = nn.DataParallel(nn.Linear(6, 1))
extra = make()
head = Child()
twin = Twin()
opt = torch.optim.SGD(
    [
        {"params": model.parameters()},
        {"params": extra, "lr": 0.02},
        {"params": [head.gain, twin.gain]},
        {"params": head.shift, "lr": 0.02},
        {"params": twin.shift},
    ],
    lr=0.01,
)
for epoch in range(2):
    for xb, yb in loader:
        out = twin.apply(head.apply(model(xb) * extra[0] + extra[1]))
        loss = ((out - yb) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
print("extra %.4f %.4f" % (extra[0].item(), extra[1].item()))
print("gain %.4f twin %.4f" % (head.gain.item(), twin.gain.item()))
shifts = [head.shift[0], head.shift[1], twin.shift[1]]
print("shift %.4f %.4f twin %.4f" % tuple(p.item() for p in shifts))
