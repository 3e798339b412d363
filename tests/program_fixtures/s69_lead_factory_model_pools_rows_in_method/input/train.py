import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from nets.metric import define_net


class Episodes(Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        query = torch.randn(2, 5, generator=g)
        supports = [torch.randn(2, 5, generator=g) for _ in range(2)]
        return query, supports, i % 2


torch.manual_seed(0)
model = nn.DataParallel(define_net())
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for query, supports, target in DataLoader(Episodes(), batch_size=4):
    loss = nn.functional.cross_entropy(model(query, supports), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("weights %.6f" % sum(p.sum().item() for p in model.parameters()))
