"""Batches sliced from in-memory numpy arrays by a generator of the script (no DataLoader),
made tensors in the loop; a loss object sums the per-sample losses and does backward and
step (issue 28; real-world class: huggingface/pytorch-openai-transformer-lm@bfd8e09,
`utils.iter_data` and `LossCompute`). Before: the loop was not taken for a training loop (its
step is the loss object's), nothing was split and the summed loss was still multiplied by
WORLD_SIZE: every rank trained on the whole batch with twice DataParallel's gradient."""

import numpy as np
import torch
import torch.nn as nn


def iter_data(*datas, n_batch=4):
    n = (len(datas[0]) // n_batch) * n_batch
    for i in range(0, n, n_batch):
        yield (d[i : i + n_batch] for d in datas)


class LossCompute:
    def __init__(self, crit, opt):
        self.crit, self.opt = crit, opt

    def __call__(self, logits, y):
        loss = self.crit(logits, y).sum()
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        return loss.item()


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    X = np.random.randn(32, 6).astype(np.float32)
    Y = (X[:, 0] > 0).astype(np.int64)
    model = nn.Linear(6, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    compute = LossCompute(nn.CrossEntropyLoss(reduction="none"), opt)
    model = nn.DataParallel(model)
    for _ in range(2):
        for xmb, ymb in iter_data(X, Y, n_batch=8):
            XMB = torch.tensor(xmb)
            YMB = torch.tensor(ymb)
            logits = model(XMB)
            compute(logits, YMB)
    global E2E_DIGEST
    E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]


if __name__ == "__main__":
    main()
