"""Gradient accumulation over column chunks of a hand-batched language model (the class of
zihangdai/mos@9c0c608, issue 28 class S3): DataParallel(model, dim=1), the batch bound in the
loop, `for start in range(0, BATCH, CHUNK)` slicing `data[:, start:start + CHUNK]`, each
chunk's loss weighted `CHUNK / BATCH`. Split where it is bound, each rank holds BATCH //
WORLD_SIZE columns: walked with the global width, its second chunk was empty and the
gradient half the original's (no warning). Migrated, the width and the chunk size are this
rank's part: to the end of training the weights are the original's."""

import torch
import torch.nn as nn
import torch.nn.functional as F

NTOKEN, BATCH, CHUNK, SEQ = 10, 4, 2, 8

torch.manual_seed(0)


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(NTOKEN, 8)
        self.out = nn.Linear(8, NTOKEN)

    def forward(self, x):
        return self.out(self.emb(x))


source = torch.randint(0, NTOKEN, (41, BATCH))  # (sequence, batch) columns
model = nn.DataParallel(LM(), dim=1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for i in range(0, 40, SEQ):
    data, targets = source[i : i + SEQ], source[i + 1 : i + 1 + SEQ]
    opt.zero_grad()
    for start in range(0, BATCH, CHUNK):
        x, y = data[:, start : start + CHUNK], targets[:, start : start + CHUNK]
        loss = F.cross_entropy(model(x).view(-1, NTOKEN), y.reshape(-1)) * CHUNK / BATCH
        loss.backward()
    opt.step()
E2E_DIGEST = [round(float(p.detach().double().sum()), 6) for p in model.parameters()]
print("final", E2E_DIGEST)
