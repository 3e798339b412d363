# A vocabulary numbered by a plain `for` loop over a set of strings: each process iterates
# a set of strings in its own hash order.
import torch
import torch.nn as nn

from vocab import word_set

words = word_set()
word2id = {}
for word in words:
    word2id[word] = len(word2id)
tags = set(["B-PER", "I-PER", "O", "B-LOC", "I-LOC", "B-ORG", "I-ORG"])
order = []
for tag in tags:
    order.append(tag)
seen = 0
for word in words:
    if word.startswith("c"):
        seen += 1
torch.manual_seed(0)
model = nn.DataParallel(nn.Embedding(len(word2id), 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ids = torch.tensor([word2id[w] for w in "the cat sat on the mat".split(" ")])
for step in range(3):
    loss = model(ids).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
E2E_DIGEST = [sorted(word2id.items(), key=lambda kv: kv[1]), order]
print("words", len(word2id), "tags", len(order), "c", seen)
