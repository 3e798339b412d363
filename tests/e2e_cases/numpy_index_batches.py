"""Batches cut from in-memory numpy arrays by an index array: a permutation drawn each
epoch, `idx = perm[i:i + bs]`, `x = torch.from_numpy(X[idx])`. DataParallel split each
batch over the GPUs; DDP's ranks must take their parts of the batch (not of the index
array, which the split of tensors passes by), cut from one permutation all ranks share."""

import numpy as np
import torch
import torch.nn as nn

BS = 8


def main():
    np.random.seed(0)
    torch.manual_seed(0)
    X = np.random.randn(48, 4).astype(np.float32)
    Y = (X @ np.array([[1.0], [-2.0], [0.5], [3.0]], dtype=np.float32)).astype(np.float32)
    model = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(3):
        perm = np.random.permutation(len(X))
        for i in range(0, len(X), BS):
            idx = perm[i : i + BS]
            x = torch.from_numpy(X[idx])
            y = torch.from_numpy(Y[idx])
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    global E2E_DIGEST
    E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]


if __name__ == "__main__":
    main()
