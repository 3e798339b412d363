"""A sequence-first language model batchified by hand, as pytorch/examples'
word_language_model: batchify() lays the token stream out as (sequence, batch) columns,
get_batch() slices bptt rows and flattens the targets, and the model is wrapped with
DataParallel(model, dim=1), which split every batch's columns over the GPUs."""

import torch
import torch.nn as nn
import torch.nn.functional as F

NTOKEN, BPTT, BATCH, HIDDEN = 16, 5, 4, 8


class RNNModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Embedding(NTOKEN, HIDDEN)
        self.rnn = nn.GRU(HIDDEN, HIDDEN)
        self.decoder = nn.Linear(HIDDEN, NTOKEN)

    def forward(self, tokens, hidden):
        output, hidden = self.rnn(self.encoder(tokens), hidden)
        return self.decoder(output), hidden  # (sequence, batch, NTOKEN)

    def init_hidden(self, bsz):
        return torch.zeros(1, bsz, HIDDEN)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i):
    seq_len = min(BPTT, len(source) - 1 - i)
    data = source[i : i + seq_len]
    target = source[i + 1 : i + 1 + seq_len].view(-1)
    return data, target


def evaluate(model, source):
    model.eval()
    total = 0.0
    hidden = model.init_hidden(BATCH)
    with torch.no_grad():
        for i in range(0, source.size(0) - 1, BPTT):
            data, targets = get_batch(source, i)
            output, hidden = model(data, hidden)
            total += len(data) * F.cross_entropy(output.view(-1, NTOKEN), targets).item()
    return total / (len(source) - 1)


def main():
    torch.manual_seed(0)
    tokens = torch.randint(0, NTOKEN, (240,), generator=torch.Generator().manual_seed(1))
    train_data = batchify(tokens[:200], BATCH)
    val_data = batchify(tokens[200:], BATCH)
    model = RNNModel()
    para_model = nn.DataParallel(model, dim=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for epoch in range(2):
        model.train()
        hidden = model.init_hidden(BATCH)
        for i in range(0, train_data.size(0) - 1, BPTT):
            data, targets = get_batch(train_data, i)
            hidden = hidden.detach()
            optimizer.zero_grad()
            output, hidden = para_model(data, hidden)
            loss = F.cross_entropy(output.view(-1, NTOKEN), targets)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} valid loss {evaluate(model, val_data):.4f}")
    global E2E_DIGEST
    E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]


if __name__ == "__main__":
    main()
