"""A character GPT: batches of torch.randint windows, attention dropout on (B, T, T),
evaluation and sampling (in train mode) between steps."""

import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(100)
batch_size, block_size, n_emb, vocab = 4, 8, 12, 11
data = torch.randint(0, vocab, (300,))
train_data, validation_data = data[:270], data[270:]


def get_batch(data):
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i : i + block_size] for i in ix])
    y = torch.stack([data[i + 1 : i + block_size + 1] for i in ix])
    return x, y


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.key = nn.Linear(n_emb, n_emb, bias=False)
        self.query = nn.Linear(n_emb, n_emb, bias=False)
        self.value = nn.Linear(n_emb, n_emb, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(0.2)

    def forward(self, x):
        B, T, C = x.shape
        wei = self.query(x) @ self.key(x).transpose(-1, -2) * C**-0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = self.dropout(F.softmax(wei, dim=-1))
        return wei @ self.value(x)


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(vocab, n_emb)
        self.pos = nn.Embedding(block_size, n_emb)
        self.head = Head()
        self.drop = nn.Dropout(0.2)
        self.lm_head = nn.Linear(n_emb, vocab)

    def forward(self, x):
        B, T = x.shape
        h = self.tok(x) + self.pos(torch.arange(T))
        h = h + self.drop(self.head(h))
        return self.lm_head(h)


def lm_loss(lm, x, targets):
    logits = lm(x)
    B, T, V = logits.shape
    return F.cross_entropy(logits.view(B * T, V), targets.view(B * T))


def lm_generate(lm, x, max_new_tokens):
    for _ in range(max_new_tokens):
        logits = lm(x[:, -block_size:])[:, -1, :]
        x = torch.cat([x, torch.multinomial(F.softmax(logits, dim=1), num_samples=1)], dim=1)
    return x


lm = nn.DataParallel(GPT())


@torch.no_grad()
def evaluate(lm):
    out = {}
    lm.eval()
    for split, data in [("train", train_data), ("validation", validation_data)]:
        losses = torch.zeros(3)
        for k in range(3):
            x, y = get_batch(data)
            losses[k] = lm_loss(lm, x, y).item()
        out[split] = losses.mean()
    lm.train()
    return out


optimizer = torch.optim.Adam(lm.parameters(), lr=3e-3)
for i in range(5):
    if i % 2 == 0:
        losses = evaluate(lm)
        print(f"step {i}: train {losses['train']:.4f}, validation {losses['validation']:.4f}")
        outputs = lm_generate(lm, torch.tensor([[1, 2], [3, 4], [5, 6]]), 4)
        print(outputs.tolist())
    optimizer.zero_grad()
    x, y = get_batch(train_data)
    loss = lm_loss(lm, x, y)
    loss.backward()
    optimizer.step()
