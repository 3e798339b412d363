"""v2-A (stop 41, dbiir/UER-py): batches cut by the program's own generator from tensors made
of a list a helper fills by appends (`dataset = []`), handed to a step helper. The batch proof
followed the slices back to the literal `[]` and took it for a constant every rank computes
whole: no split, no word, every rank trained the whole batch."""

import random

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)

    def forward(self, x, y):
        return nn.functional.cross_entropy(self.fc(x), y)


def read_dataset(n):
    dataset = []
    for _ in range(n):
        dataset.append(([random.random() for _ in range(6)], random.randint(0, 1)))
    return dataset


def batch_loader(batch_size, src, tgt):
    n = src.size()[0]
    for i in range(n // batch_size):
        yield (
            src[i * batch_size : (i + 1) * batch_size, :],
            tgt[i * batch_size : (i + 1) * batch_size],
        )


def train_model(model, optimizer, src_batch, tgt_batch):
    model.zero_grad()
    loss = model(src_batch, tgt_batch)
    loss.backward()
    optimizer.step()
    return loss


torch.manual_seed(0)
random.seed(0)
trainset = read_dataset(16)
model = nn.DataParallel(Net())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _epoch in range(2):
    random.shuffle(trainset)
    src = torch.tensor([e[0] for e in trainset])
    tgt = torch.LongTensor([e[1] for e in trainset])
    for src_batch, tgt_batch in batch_loader(4, src, tgt):
        loss = train_model(model, optimizer, src_batch, tgt_batch)
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
