"""A sequence-first language model batchified by hand in a `for i in range(0, n, bptt)`
loop, with DataParallel(model, dim=1) and a get_batch() that keeps (sequence, batch) shapes:
each batch is split along dim 1 right after get_batch(), so the hidden state built by
model.init_hidden(batch_size) must hold this rank's columns too (with the global batch
every rank failed: "Expected hidden size (1, 2, 8), got [1, 4, 8]")."""

import torch
import torch.nn as nn
import torch.nn.functional as F

NTOKEN, BPTT, HIDDEN = 16, 5, 8


class RNNModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Embedding(NTOKEN, HIDDEN)
        self.rnn = nn.GRU(HIDDEN, HIDDEN)
        self.decoder = nn.Linear(HIDDEN, NTOKEN)

    def forward(self, tokens, hidden):
        output, hidden = self.rnn(self.encoder(tokens), hidden)
        return self.decoder(output), hidden

    def init_hidden(self, bsz):
        return torch.zeros(1, bsz, HIDDEN)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous()


def get_batch(source, i):
    seq_len = min(BPTT, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len]


def main(batch_size=4):
    torch.manual_seed(0)
    tokens = torch.randint(0, NTOKEN, (200,), generator=torch.Generator().manual_seed(1))
    train_data = batchify(tokens, batch_size)
    model = RNNModel()
    para_model = nn.DataParallel(model, dim=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for epoch in range(2):
        hidden = model.init_hidden(batch_size)
        for i in range(0, train_data.size(0) - 1, BPTT):
            data, targets = get_batch(train_data, i)
            hidden = hidden.detach()
            optimizer.zero_grad()
            output, hidden = para_model(data, hidden)
            loss = F.cross_entropy(output.reshape(-1, NTOKEN), targets.reshape(-1))
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    global E2E_DIGEST
    E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]


if __name__ == "__main__":
    main()
