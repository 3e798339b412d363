import torch
import torch.nn as nn
from episodes import DS
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup

ddp_setup()


torch.manual_seed(0)
g = torch.Generator().manual_seed(1)
train_ds = DS(torch.randint(0, 20, (8, 5), generator=g), torch.randint(0, 3, (8,), generator=g))
eval_ds = DS(torch.randint(0, 20, (8, 5), generator=g), torch.randint(0, 3, (8,), generator=g))
train_loader = train_ds.get_loader()
# dp2ddp: DP015 evaluation metrics not reduced
eval_loader = eval_ds.get_loader(ddp_shard=False)

net = DistributedDataParallel(
    nn.Sequential(nn.EmbeddingBag(20, 8), nn.Linear(8, 3)).to(DEVICE),
    device_ids=DEVICE_IDS,
)
opt = torch.optim.SGD(net.parameters(), lr=0.5)
crit = nn.CrossEntropyLoss()

for epoch in range(2):
    train_loader.sampler.set_epoch(epoch)
    net.train()
    for x, y in train_loader:
        opt.zero_grad()
        crit(net(x), y).backward()
        opt.step()
    net.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for x, y in eval_loader:
            correct += (net(x).argmax(1) == y).sum().item()
            total += y.size(0)
    ddp_print(f"epoch {epoch} eval acc {correct / total:.4f} over {total} samples")
ddp_print(f"weights {sum(p.sum() for p in net.parameters()).item():.6f}")
