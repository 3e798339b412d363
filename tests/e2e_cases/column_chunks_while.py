"""MoS's own accumulation loop (zihangdai/mos@9c0c608 main.py, issue 28 class S3) in small:
DataParallel(model, dim=1), a `get_batch` helper of the module, `start, end = 0, small`,
`while start < args.batch_size: ...; start = end; end = start + small`, each chunk's loss
weighted by its measured width over the configured one (`cur_data.size(1) /
args.batch_size`). Split where it is bound, each rank walked the global width over its half
and weighted its chunks by the global width: half the original's gradient, no warning.
Migrated, the width, the chunk size and the weight's width are this rank's part."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

NTOKEN = 10

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=4)
parser.add_argument("--small_batch_size", type=int, default=2)
args = parser.parse_args([])

torch.manual_seed(0)


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(NTOKEN, 8)
        self.out = nn.Linear(8, NTOKEN)

    def forward(self, x):
        return self.out(self.emb(x))


def get_batch(src, i, n=8):
    return src[i : i + n], src[i + 1 : i + 1 + n]


source = torch.randint(0, NTOKEN, (41, args.batch_size))
model = nn.DataParallel(LM(), dim=1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for i in range(0, 40, 8):
    data, targets = get_batch(source, i)
    opt.zero_grad()
    start, end = 0, args.small_batch_size
    while start < args.batch_size:
        cur_data, cur_targets = data[:, start:end], targets[:, start:end]
        cur_bs = cur_data.size(1)
        loss = F.cross_entropy(model(cur_data).view(-1, NTOKEN), cur_targets.reshape(-1))
        loss = loss * cur_bs / args.batch_size
        loss.backward()
        start = end
        end = start + args.small_batch_size
    opt.step()
E2E_DIGEST = [round(float(p.detach().double().sum()), 6) for p in model.parameters()]
print("final", E2E_DIGEST)
