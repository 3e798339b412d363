"""The models of a package (re-exported by its __init__.py) return each replica's loss
averaged over its rows; the loop sums the values DataParallel gathered. A sum of replica
means: no `* WORLD_SIZE` at the backward (it doubled every update on 2 ranks)."""
import torch
import torch.nn as nn

from nets import LossHead, MeanHead

torch.manual_seed(0)

head = nn.DataParallel(LossHead())
mean_head = nn.DataParallel(MeanHead())
x = torch.randn(16, 8)
y = torch.randint(0, 4, (16,))
t = torch.randn(16, 4)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y, t), batch_size=8)
opt = torch.optim.SGD(list(head.parameters()) + list(mean_head.parameters()), lr=0.1)

for epoch in range(2):
    for xb, yb, tb in loader:
        loss = head(xb, yb).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total = mean_head(xb, tb)[:, 0].sum()
        opt.zero_grad()
        total.backward()
        opt.step()

print('weights %.6f' % sum(p.abs().sum().item() for p in head.parameters()))
print('mean %.6f' % sum(p.abs().sum().item() for p in mean_head.parameters()))
