"""The attack module of s60_v4b_attack_module_elsewhere (its train.py says why)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class RandomStartAttack(nn.Module):
    def __init__(self, epsilon, steps):
        super().__init__()
        self.epsilon = epsilon
        self.steps = steps

    def forward(self, model, x, y):
        adv = x.detach()
        adv = adv + torch.zeros_like(adv).uniform_(-self.epsilon, self.epsilon)
        for _ in range(self.steps):
            adv.requires_grad_()
            with torch.enable_grad():
                loss = F.cross_entropy(model(adv), y)
            grad = torch.autograd.grad(loss, adv)[0]
            adv = torch.min(torch.max(adv.detach() + 0.5 * grad.sign(), x - 1.0), x + 1.0)
        return adv.detach()
