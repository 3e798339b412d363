"""Stop 59 v3-D (csdongxian/AWP@a7acf5d): an adversarial weight perturbation. Each step
attacks the batch from a random start (`delta.uniform_`, one per sample), trains a proxy
copy of the model one step on the attacked batch (the first optimizer), moves the model's
weights in place by the proxy's change, steps the model (the second optimizer) and moves
them back. The model's weights are first stepped at step 2, after the perturbation: where
the random starts differ, verify said "initial weights differ ... although every RNG was
seeded alike" first and the draw second."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def net():
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))


def attack(model, x, y, epsilon=0.1):
    delta = torch.zeros_like(x)
    delta.uniform_(-epsilon, epsilon)
    delta.requires_grad_(True)
    loss = F.cross_entropy(model(x + delta), y)
    grad = torch.autograd.grad(loss, delta)[0]
    return (x + delta + 0.5 * epsilon * grad.sign()).detach()


torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4), torch.randint(0, 3, (32,)))
loader = DataLoader(data, batch_size=8)
model = nn.DataParallel(net())
proxy = nn.DataParallel(net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
proxy_opt = torch.optim.SGD(proxy.parameters(), lr=0.05)
for x, y in loader:
    x_adv = attack(model, x, y)
    proxy.load_state_dict(model.state_dict())
    proxy_loss = -F.cross_entropy(proxy(x_adv), y)
    proxy_opt.zero_grad()
    proxy_loss.backward()
    proxy_opt.step()
    pairs = zip(model.parameters(), proxy.parameters(), strict=True)
    diff = [q.detach() - p.detach() for p, q in pairs]
    with torch.no_grad():
        for p, d in zip(model.parameters(), diff, strict=True):
            p.add_(d)
    loss = F.cross_entropy(model(x_adv), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for p, d in zip(model.parameters(), diff, strict=True):
            p.sub_(d)
