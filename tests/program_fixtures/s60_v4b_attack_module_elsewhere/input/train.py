"""An attack module of another module of the program that the training loop calls on the
wrapped model and its batch (the shape of hendrycks/ss-ood@8051356 adversarial/train.py and
attacks.py, stop 60 v4-B): `adversary(net, x, y)` runs the forward of `attacks.
RandomStartAttack`, a torch module that is not the wrapped model, which starts the attack from
random noise over the rows it is handed (`torch.zeros_like(adv).uniform_(...)`). DataParallel
ran it once, in its one process, over the whole batch: one draw per row. Migrated, each rank
draws for its own rows from its own stream; the streams agree (one fixed seed), so every rank
starts its rows from the same noise. The draw is not rewritten: DP006 at the call in the
loop names the module's forward and its draw (before: nothing, the call of a torch module of
another module was not followed to its forward)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

import attacks

torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 6), torch.randint(0, 3, (16,)))
loader = DataLoader(data, batch_size=8, shuffle=False)
net = nn.DataParallel(nn.Linear(6, 3))
optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
adversary = attacks.RandomStartAttack(epsilon=2.0, steps=1)


def train():
    for x, y in loader:
        adv = adversary(net, x, y)
        loss = F.cross_entropy(net(adv), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


for epoch in range(2):
    train()
print("weights %.4f" % net.module.weight.sum().item())
