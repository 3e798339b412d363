"""Stop 51 (helper s1): tensors the optimizer trains, built in another module (`make_extra()`
returns a list display bound to a name first; `make_gains(2)` a list grown by `append` in a
loop), a list grown here after its binding (`extra.append(nn.Parameter(...))`), and the
`scale` of heads.py's own module class (`scaler.scale`). No DDP wrap holds them: each rank
would train its own copies on its share."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from heads import Scaler
from params import make_extra, make_gains

torch.manual_seed(0)
x = torch.randn(32, 6)
y = x.sum(1, keepdim=True) * 2 + 1
loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=False)
model = nn.DataParallel(nn.Linear(6, 1))
extra = make_extra()
extra.append(nn.Parameter(torch.full((1,), 0.5)))
gains = make_gains(2)
scaler = Scaler()
opt = torch.optim.SGD(list(model.parameters()) + extra + gains + [scaler.scale], lr=0.05)
for epoch in range(2):
    for xb, yb in loader:
        out = scaler(model(xb) * extra[0] * gains[0] + extra[1] + extra[2] * gains[1])
        loss = ((out - yb) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
print("extra %.4f %.4f %.4f gains %.4f %.4f" % tuple(p.item() for p in extra + gains))
print("scale %.4f" % scaler.scale.item())
