"""The padded batches of a sequential training loader (no shuffle, no sampler: the data
pass shards it all the same) reach a recurrent classifier that ignores the lengths: each
rank pads its share to its own longest item, so the positions the model sums over differ
from DataParallel's: DP127 (before: unsaid, only a shuffled loader or one given a sampler
was read as training by the padding check).
"""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from data import PAD, Texts, collate

ddp_setup()


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 8, padding_idx=PAD)
        self.rnn = nn.GRU(8, 8, batch_first=True)
        self.out = nn.Linear(8, 2)

    def forward(self, tokens, lengths):
        states, _ = self.rnn(self.embed(tokens))
        return self.out(states.sum(dim=1))


torch.manual_seed(0)
model = DistributedDataParallel(Classifier().to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
dataset = Texts(16)
loader = torch.utils.data.DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    collate_fn=collate,
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
for epoch in range(2):
    for tokens, lengths, labels in loader:
        loss = nn.functional.cross_entropy(model(tokens, lengths), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
ddp_print("loss %.4f" % loss.item())
