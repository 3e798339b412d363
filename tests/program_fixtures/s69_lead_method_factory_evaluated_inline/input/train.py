import torch
import torch.nn as nn
from episodes import DS

torch.manual_seed(0)
g = torch.Generator().manual_seed(1)
train_ds = DS(torch.randint(0, 20, (8, 5), generator=g), torch.randint(0, 3, (8,), generator=g))
eval_ds = DS(torch.randint(0, 20, (8, 5), generator=g), torch.randint(0, 3, (8,), generator=g))
train_loader = train_ds.get_loader()
eval_loader = eval_ds.get_loader()

net = nn.DataParallel(nn.Sequential(nn.EmbeddingBag(20, 8), nn.Linear(8, 3)))
opt = torch.optim.SGD(net.parameters(), lr=0.5)
crit = nn.CrossEntropyLoss()

for epoch in range(2):
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
    print(f"epoch {epoch} eval acc {correct / total:.4f} over {total} samples")
print(f"weights {sum(p.sum() for p in net.parameters()).item():.6f}")
