import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_same_random,
    ddp_setup,
)
from network import Denoiser


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = DistributedDataParallel(Denoiser().to(DEVICE), device_ids=DEVICE_IDS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    with ddp_same_random():
        clean = torch.randn(8, 5)
    dataset = TensorDataset(clean)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    for epoch in range(2):
        for (x,) in loader:
            out = model(x + 0.1 * torch.ones_like(x))
            loss = model.module.loss(x, out)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        ddp_print(epoch, round(loss.item(), 5))
    ddp_print("weights %.5f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
