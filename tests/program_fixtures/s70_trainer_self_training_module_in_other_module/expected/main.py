import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from learner import PairLearner


def main():
    ddp_setup()
    torch.manual_seed(0)
    inputs = torch.randn(96, 6)
    targets = inputs[:, :3].sum(1, keepdim=True) - inputs[:, 3:].sum(1, keepdim=True)
    dataset = TensorDataset(inputs, targets)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(24),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    learner = PairLearner(6, 5)
    learner = DistributedDataParallel(learner.to(DEVICE), device_ids=DEVICE_IDS)
    learner.module.fit(loader, epochs=3)
    head = learner.module.head.weight.detach()
    encoder = learner.module.encoder[0].weight.detach()
    ddp_print(
        f"head {head.abs().sum().item():.6f} encoder {encoder.abs().sum().item():.6f}"
    )


if __name__ == "__main__":
    main()
