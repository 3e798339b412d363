import torch
import torch.nn as nn

from _dp2ddp import ddp_shard_batch


class Stream:
    """(data, target) pairs of a (sequence, batch) layout, bptt rows at a time."""

    def __init__(self, tokens, bsz, bptt):
        self.data = tokens[: len(tokens) // bsz * bsz].view(bsz, -1).t().contiguous()
        self.bptt = bptt

    def __iter__(self):
        for i in range(0, self.data.size(0) - 1, self.bptt):
            n = min(self.bptt, self.data.size(0) - 1 - i)
            yield self.data[i:i + n], self.data[i + 1:i + 1 + n]


class Trainer:
    def __init__(self, model, tokens):
        self.model = model
        self.stream = Stream(tokens, 4, 5)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def fit(self, epochs):
        for epoch in range(epochs):
            for data, target in self.stream:
                data, target = ddp_shard_batch(
                    (data, target), dim=1, source=self.stream
                )
                logits = self.model(data)
                loss = nn.functional.cross_entropy(logits.view(-1, 20), target.reshape(-1))
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
