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
from losses import MarginSum
from model import AutoEncoder


def main():
    ddp_setup()
    torch.manual_seed(0)
    model = AutoEncoder()
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    hinge = MarginSum()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    with ddp_same_random():
        data = TensorDataset(
            torch.randn(8, 5, 3), torch.randint(0, 2, (8,)).float() * 2 - 1
        )
    loader = DataLoader(
        data,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(data, shuffle=False),
    )
    for epoch in range(2):
        for clouds, labels in loader:
            rebuilt, scores = model(clouds)
            loss = model.module.get_loss(clouds, rebuilt)
            loss = loss + hinge(scores, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        ddp_print(epoch, round(loss.item(), 5))
    ddp_print("weights %.5f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
