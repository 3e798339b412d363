"""An alias sampler that moves its own tensors (HobbitLong/CMC's AliasMethod): no `to()`."""
import torch


class AliasTable(object):
    def __init__(self, probs):
        self.prob = probs / probs.sum()
        self.alias = torch.zeros(len(probs), dtype=torch.long)

    def cuda(self):
        self.prob = self.prob.cuda()
        self.alias = self.alias.cuda()

    def draw(self, n):
        return torch.multinomial(self.prob, n, replacement=True)
