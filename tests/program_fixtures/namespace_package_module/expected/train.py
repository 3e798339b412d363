"""v4-B: the model's module is in a folder without __init__.py (a namespace package, as
Tencent/MedicalNet's models/), imported `from nets import body`."""
import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_same_random,
    ddp_setup,
)
from nets import body


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(body.build().to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with ddp_same_random():
        data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    for step, (x, y) in enumerate(
        DataLoader(
            data,
            batch_size=ddp_per_rank_batch(4),
            sampler=DdpDistributedSampler(data, shuffle=False),
        ),
    ):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        body.report(step, loss.item())
    body.save(model.module, "last.pt")


if __name__ == "__main__":
    main()
