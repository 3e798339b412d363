"""The training set held as tensors; batches are index tensors of an index-loader class
(`randperm(n).split(bs)`), applied in a closure given to a step helper that does zero_grad,
backward and step and cuts the batch into chunks only when it is larger than the chunk size
(issue 28; real-world class: yandex-research/rtdl-revisiting-models@e3ed46c, `IndexLoader`
and `train_with_auto_virtual_batch`). Before: the class was taken for a DataLoader by its
name and the closure's model call for no training call: nothing was split on the path
taken; a second migration split the helper's chunk branch (not a fixed point)."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class IndexLoader:
    def __init__(self, size, batch_size, shuffle):
        self.size, self.batch_size, self.shuffle = size, batch_size, shuffle

    def __len__(self):
        return math.ceil(self.size / self.batch_size)

    def __iter__(self):
        idx = torch.randperm(self.size) if self.shuffle else torch.arange(self.size)
        return iter(idx.split(self.batch_size))


def train_step(optimizer, loss_fn, step, batch, chunk_size):
    optimizer.zero_grad()
    if len(batch) <= chunk_size:
        loss = loss_fn(*step(batch))
        loss.backward()
    else:
        loss = 0.0
        for chunk in batch.split(chunk_size):
            chunk_loss = loss_fn(*step(chunk)) * (len(chunk) / len(batch))
            chunk_loss.backward()
            loss += chunk_loss.detach()
    optimizer.step()
    return loss


def main():
    torch.manual_seed(0)
    X = torch.randn(32, 4)
    Y = (X[:, 0] > 0).float()
    model = nn.DataParallel(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(3):
        for batch_idx in IndexLoader(32, 8, True):
            train_step(
                optimizer,
                F.binary_cross_entropy_with_logits,
                lambda idx: (model(X[idx]).squeeze(-1), Y[idx]),
                batch_idx,
                8,
            )
    global E2E_DIGEST
    E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]


if __name__ == "__main__":
    main()
