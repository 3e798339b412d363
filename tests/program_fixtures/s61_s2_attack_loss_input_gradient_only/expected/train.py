"""Adversarial training with a PGD attack whose summed losses are only differentiated with
respect to the input (hendrycks/ss-ood's attacks.PGD): no parameter gradient to scale, no
DP004 there. Controls: the same sum through a gradient kept for a penalty
(create_graph=True), and one differentiated with respect to the weights."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup, ddp_shard_batch
from attacks import PGD

ddp_setup()


def input_penalty(model, x, y):
    x = x.detach().requires_grad_()
    loss = F.cross_entropy(model(x), y, reduction="sum")
    grad = torch.autograd.grad(loss, x, create_graph=True)[0]
    return grad.pow(2).mean()


def weight_grads(model, x, y):
    loss = F.cross_entropy(model(x), y, reduction="sum")
    return torch.autograd.grad(loss, list(model.parameters()))


torch.manual_seed(0)
net = DistributedDataParallel(nn.Linear(4, 3).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
adversary = PGD(0.1, 2, 0.05)
g = torch.Generator().manual_seed(1)
data = [(torch.randn(8, 4, generator=g), torch.randint(0, 3, (8,), generator=g)) for _ in range(3)]
for x, y in data:
    x, y = ddp_shard_batch((x, y), source=data)
    adv = adversary(net, x, y)
    loss = F.cross_entropy(net(adv), y) + input_penalty(net, x, y)
    opt.zero_grad()
    loss.backward()
    for p, gp in zip(net.parameters(), weight_grads(net, x, y)):
        p.grad += 0.01 * gp
    opt.step()
ddp_print("weights %.4f" % net.module.weight.sum().item())
