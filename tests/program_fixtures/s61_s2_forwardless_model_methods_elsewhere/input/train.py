"""Stop 60 s1's leftover in its program shape (bpowell122/tomodrgn@e19eae9): the model class,
in another module, defines no forward(); the entry trains it through its methods on a
forwarding DataParallel subclass. DP190 at encode() and decode() (before: none, the
class's methods unclassified); latent_size() runs no layer and is left as written."""

import torch
from torch.utils.data import DataLoader, TensorDataset

from models61 import DataParallelPassthrough, HetOnlyVAE

torch.manual_seed(0)
model = DataParallelPassthrough(HetOnlyVAE())
loader = DataLoader(TensorDataset(torch.randn(16, 4)), batch_size=4)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    for (x,) in loader:
        z = model.encode(x)
        out = model.decode(z)
        loss = ((out - x) ** 2).mean() + 0.0 * model.latent_size()
        opt.zero_grad()
        loss.backward()
        opt.step()
print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
