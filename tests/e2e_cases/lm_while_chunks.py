"""A sequence-first language model batchified by hand and driven by a `while` loop
(`i += seq_len`), with DataParallel(model, dim=1): each batch is cut into time chunks, each
chunk with a hidden state of its own carried from batch to batch. DataParallel split every
chunk's columns (and its hidden state's) over the GPUs; DDP's ranks must each take their
columns of the batchified stream, and their hidden states this rank's columns."""

import torch
import torch.nn as nn
import torch.nn.functional as F

NTOKEN, BPTT, BATCH, HIDDEN, CHUNKS = 16, 6, 4, 8, 2


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
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, seq_len):
    seq_len = min(seq_len, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len]


def main():
    torch.manual_seed(0)
    tokens = torch.randint(0, NTOKEN, (200,), generator=torch.Generator().manual_seed(1))
    train_data = batchify(tokens, BATCH)
    model = RNNModel()
    para_model = nn.DataParallel(model, dim=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for epoch in range(2):
        hiddens = [model.init_hidden(BATCH) for _ in range(CHUNKS)]
        i = 0
        while i < train_data.size(0) - 1:
            data, targets = get_batch(train_data, i, BPTT)
            optimizer.zero_grad()
            total = 0.0
            for c, (chunk, chunk_targets) in enumerate(
                zip(data.chunk(CHUNKS, 0), targets.chunk(CHUNKS, 0), strict=True)
            ):
                hiddens[c] = hiddens[c].detach()
                output, hiddens[c] = para_model(chunk, hiddens[c])
                loss = F.cross_entropy(output.reshape(-1, NTOKEN), chunk_targets.reshape(-1))
                total = total + loss
            total.backward()
            optimizer.step()
            i += BPTT
        print(f"epoch {epoch} loss {float(total):.4f}")
    global E2E_DIGEST
    E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]


if __name__ == "__main__":
    main()
