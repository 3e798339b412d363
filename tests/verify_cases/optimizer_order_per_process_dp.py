"""Optimizer groups in another order in every process (V6, the shape of
tjddus9597/Proxy-Anchor-CVPR2020@51db570: `list(set(model.parameters()).difference(...))`,
ordered by object id). A set's order is not reproducible on demand, so the order here is
rotated by the process's RANK (none in the original): the original, rank 0 and rank 1 each
list the parameters differently. verify matched parameters by their place in the
optimizer and reported "different parameters", "initial weights differ", "ranks in sync
NO"; they are now keyed by their names in the model: EQUIVALENT."""

import os

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(0)
    model = nn.DataParallel(nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)))
    params = list(model.parameters())
    turn = int(os.environ.get("RANK", "-1")) + 1
    params = params[turn:] + params[:turn]
    optimizer = torch.optim.SGD([{"params": params[:2]}, {"params": params[2:]}], lr=0.1)
    data = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    for x, y in DataLoader(data, batch_size=4, shuffle=True):
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
