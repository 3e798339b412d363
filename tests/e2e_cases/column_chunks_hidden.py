"""MoS's accumulation loop with its hidden states (zihangdai/mos@9c0c608, issue 28 class S3):
one hidden state per column chunk from `init_hidden(args.small_batch_size)`, carried from
batch to batch, `--small_batch_size` at its default (-1: the whole batch, one chunk), the
loss weighted `small_batch_size / batch_size`. Migrated, the states are split along dim 1
with the batch, the width and the chunk size are this rank's part, the weight (a ratio of
the two) is kept: the weights end as the original's."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

NTOKEN = 10

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=4)
parser.add_argument("--small_batch_size", type=int, default=-1)
args = parser.parse_args([])
if args.small_batch_size < 0:
    args.small_batch_size = args.batch_size

torch.manual_seed(0)


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(NTOKEN, 8)
        self.rnn = nn.GRU(8, 8)
        self.out = nn.Linear(8, NTOKEN)

    def forward(self, x, hidden):
        output, hidden = self.rnn(self.emb(x), hidden)
        return self.out(output), hidden

    def init_hidden(self, bsz):
        return torch.zeros(1, bsz, 8)


def get_batch(src, i, n=8):
    return src[i : i + n], src[i + 1 : i + 1 + n]


def train():
    chunks = args.batch_size // args.small_batch_size
    hidden = [net.init_hidden(args.small_batch_size) for _ in range(chunks)]
    for i in range(0, 40, 8):
        data, targets = get_batch(source, i)
        opt.zero_grad()
        start, end, s_id = 0, args.small_batch_size, 0
        while start < args.batch_size:
            cur_data, cur_targets = data[:, start:end], targets[:, start:end].contiguous().view(-1)
            hidden[s_id] = hidden[s_id].detach()
            log_prob, hidden[s_id] = model(cur_data, hidden[s_id])
            loss = F.cross_entropy(log_prob.view(-1, NTOKEN), cur_targets)
            loss *= args.small_batch_size / args.batch_size
            loss.backward()
            s_id += 1
            start = end
            end = start + args.small_batch_size
        opt.step()


source = torch.randint(0, NTOKEN, (41, args.batch_size))
net = LM()
model = nn.DataParallel(net, dim=1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
train()
E2E_DIGEST = [round(float(p.detach().double().sum()), 6) for p in model.parameters()]
print("final", E2E_DIGEST)
