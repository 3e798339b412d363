"""Stop 48 class v2-A (VITA-Group/DeblurGANv2@c16bd9f: models/networks.py returns the
generator wrapped, models/fpn_mobilenet.py freezes its MobileNet features in __init__ and
unfreezes them in a method train.py calls after the warm-up): DDP's reducer holds what
required grad at the wrap, so the unfrozen features would train per rank, apart. A wrap in
a program whose other module unfreezes gets ddp_sync_frozen, a returned wrap too."""
import torch
from torch.utils.data import DataLoader, TensorDataset

from build import get_net

torch.manual_seed(0)
net = get_net()
data = TensorDataset(torch.randn(8, 4), torch.randn(8, 2))
loader = DataLoader(data, batch_size=4)
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, net.parameters()), lr=0.1)
for epoch in range(3):
    if epoch == 1:
        net.module.unfreeze()
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for x, y in loader:
        loss = ((net(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
print("features %.4f" % net.module.features.weight.sum().item())
