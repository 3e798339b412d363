"""Adversarial training with a PGD attack whose summed losses are only differentiated with
respect to the input (hendrycks/ss-ood's attacks.PGD): no parameter gradient to scale, no
DP004 there. Controls: the same sum through a gradient kept for a penalty
(create_graph=True), and one differentiated with respect to the weights."""

import torch
import torch.nn as nn
import torch.nn.functional as F


from attacks import PGD


def input_penalty(model, x, y):
    x = x.detach().requires_grad_()
    loss = F.cross_entropy(model(x), y, reduction="sum")
    grad = torch.autograd.grad(loss, x, create_graph=True)[0]
    return grad.pow(2).mean()


def weight_grads(model, x, y):
    loss = F.cross_entropy(model(x), y, reduction="sum")
    return torch.autograd.grad(loss, list(model.parameters()))


torch.manual_seed(0)
net = nn.DataParallel(nn.Linear(4, 3))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
adversary = PGD(0.1, 2, 0.05)
g = torch.Generator().manual_seed(1)
data = [(torch.randn(8, 4, generator=g), torch.randint(0, 3, (8,), generator=g)) for _ in range(3)]
for x, y in data:
    adv = adversary(net, x, y)
    loss = F.cross_entropy(net(adv), y) + input_penalty(net, x, y)
    opt.zero_grad()
    loss.backward()
    for p, gp in zip(net.parameters(), weight_grads(net, x, y)):
        p.grad += 0.01 * gp
    opt.step()
print("weights %.4f" % net.module.weight.sum().item())
