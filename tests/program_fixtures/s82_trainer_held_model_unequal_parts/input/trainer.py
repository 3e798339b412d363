"""A trainer handed the wrapped model: each batch of the corpus is `(centres, contexts,
negatives)`, negatives holding K rows per centre, moved to the device and unpacked into
the model's call."""
import torch


class Trainer:
    def __init__(self, model, optimizer, device):
        self.model = model
        self.optimizer = optimizer
        self.device = device

    def epoch(self, corpus):
        for step, batch in enumerate(corpus.windows()):
            batch = tuple(t.to(self.device) for t in batch)
            centres, contexts, negatives = batch
            self.optimizer.zero_grad()
            loss = self.model(centres, contexts, negatives)
            loss.backward()
            self.optimizer.step()
        return step + 1
