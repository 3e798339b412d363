import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from snapshots import export_weights, weights_exported


def main():
    ddp_setup()
    torch.manual_seed(0)
    p = {"out_dir": "snapshots"}
    x = torch.randn(16, 3)
    y = x.sum(1, keepdim=True)
    dataset = TensorDataset(x, y)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    model = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        export_weights(p, model.module, epoch)
        ddp_barrier()
        if weights_exported(p, epoch):
            with torch.no_grad():
                for q in model.parameters():
                    q.mul_(0.5)
        ddp_print(
            "epoch %d weights %.4f" % (
                epoch, sum(q.sum().item() for q in model.parameters())
            ),
        )
    ddp_print("weights %.4f" % sum(q.sum().item() for q in model.parameters()))


if __name__ == "__main__":
    main()
