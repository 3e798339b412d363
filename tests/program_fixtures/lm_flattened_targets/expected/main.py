"""Mixture-of-Softmaxes' accumulation shape (zihangdai/mos@9c0c608, docs/real-world.md stop 28
L1): a (sequence, batch) stream, DataParallel(model, dim=1), each batch cut into column
chunks whose targets are flattened as they are bound, `targets[:, s:e].contiguous().view(-1)`.
The split belongs before the flatten: a flat target has no dim 1 to split along."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup, ddp_shard_batch
from lm_utils import batchify, get_batch

NTOKEN, BATCH, CHUNK, HIDDEN = 10, 4, 2, 8


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(NTOKEN, HIDDEN)
        self.rnn = nn.GRU(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, NTOKEN)

    def forward(self, x, h):
        y, h = self.rnn(self.emb(x), h)
        return self.out(y), h


def main():
    ddp_setup()
    torch.manual_seed(0)
    tokens = torch.randint(0, NTOKEN, (164,), generator=torch.Generator().manual_seed(1))
    source = batchify(tokens, BATCH)
    # dp2ddp: DP001 DataParallel dim is not 0
    model = DistributedDataParallel(LM().to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    hidden = ddp_shard_batch(
        [torch.zeros(1, CHUNK, HIDDEN) for _ in range(BATCH // CHUNK)], dim=1
    )
    i = 0
    while i < source.size(0) - 9:
        data, targets = get_batch(source, i)
        i += 8
        opt.zero_grad()
        for k, start in enumerate(range(0, BATCH, CHUNK)):
            x = data[:, start : start + CHUNK]
            x = ddp_shard_batch(x, dim=1)
            y = targets[:, start : start + CHUNK].contiguous()
            y = ddp_shard_batch(y, dim=1)
            y = y.view(-1)
            out, h = model(x, hidden[k])
            hidden[k] = h.detach()
            loss = F.cross_entropy(out.view(-1, NTOKEN), y) * CHUNK / BATCH
            loss.backward()
        opt.step()
    ddp_print(f"loss {loss.item():.4f}")
    global E2E_DIGEST
    E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]


if __name__ == "__main__":
    main()
