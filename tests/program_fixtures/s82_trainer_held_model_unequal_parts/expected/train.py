"""Skip-gram with negative sampling: the corpus yields windows of pairs beside K
negatives per pair; the trainer lives in its own module."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from trainer import Trainer

ddp_setup()


torch.manual_seed(0)
WORDS, WIDTH, K = 25, 4, 3


class Corpus:
    def __init__(self, pairs=24, window=6):
        self.centres = torch.randint(0, WORDS, (pairs,))
        self.contexts = torch.randint(0, WORDS, (pairs,))
        self.negatives = torch.randint(0, WORDS, (pairs * K,))
        self.window = window

    def windows(self):
        for i in range(0, len(self.centres), self.window):
            j = i + self.window
            yield self.centres[i:j], self.contexts[i:j], self.negatives[i * K : j * K]


class SkipGram(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Embedding(WORDS, WIDTH)
        self.outer = nn.Embedding(WORDS, WIDTH)

    def forward(self, centres, contexts, negatives):
        c = self.inner(centres)
        positive = nn.functional.logsigmoid((c * self.outer(contexts)).sum(1))
        negative = nn.functional.logsigmoid(-(c.repeat_interleave(K, 0) * self.outer(negatives)).sum(1))
        return -(positive.mean() + negative.mean())


model = DistributedDataParallel(SkipGram().to(DEVICE), device_ids=DEVICE_IDS)
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.5), torch.device("cpu"))
corpus = Corpus()
for epoch in range(2):
    steps = trainer.epoch(corpus)
ddp_print(
    "steps %d weights %.6f" % (
        steps, sum(float(w.detach().sum()) for w in model.parameters())
    ),
)
