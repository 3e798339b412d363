"""A collate_fn that pads each batch to its own longest sentence, handed to the training
loader through a lambda (the usual way to pass it a tokenizer or a pad id), and to a second
loader through functools.partial: sharded, each rank pads its share to the share's longest
sentence, and the convolution over positions sees other padding than DataParallel's one
batch did (DP151 at each model call, as for `collate_fn=pad_batch`)."""

import functools
import random

import torch
from torch import nn
from torch.utils.data import DataLoader

random.seed(0)
PAD = 0
sentences = [
    ([random.randrange(1, 9) for _ in range(random.randint(2, 7))], random.randrange(2))
    for _ in range(16)
]


def pad_batch(batch, pad):
    tokens = [words for words, _ in batch]
    longest = max(len(words) for words in tokens)
    ids = torch.tensor([words + [pad] * (longest - len(words)) for words in tokens])
    return ids, torch.tensor([label for _, label in batch])


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(9, 6)
        self.mix = nn.Conv1d(6, 6, 3, padding=1)
        self.out = nn.Linear(6, 2)

    def forward(self, ids):
        hidden = self.mix(self.embed(ids).transpose(1, 2)).transpose(1, 2)
        return self.out(hidden.mean(1))


model = nn.DataParallel(Tagger())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(sentences, batch_size=8, shuffle=True, collate_fn=lambda b: pad_batch(b, PAD))
again = DataLoader(sentences, batch_size=8, shuffle=True, collate_fn=functools.partial(pad_batch, pad=PAD))
for epoch in range(2):
    for ids, labels in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(ids), labels).backward()
        optimizer.step()
    for ids, labels in again:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(ids), labels).backward()
        optimizer.step()
