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
from agent import Agent


def run_training(model, loader, epochs):
    model.train_epochs(loader, epochs)


def main():
    ddp_setup()
    torch.manual_seed(1)
    inputs = torch.randn(80, 5)
    targets = (inputs * torch.arange(1.0, 6.0)).sum(1, keepdim=True)
    dataset = TensorDataset(inputs, targets)
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(20),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    agent = DistributedDataParallel(Agent(5).to(DEVICE), device_ids=DEVICE_IDS)
    run_training(agent.module, loader, 2)
    body = agent.module.body.weight.detach()
    value = agent.module.value.weight.detach()
    ddp_print(
        f"body {body.abs().sum().item():.6f} value {value.abs().sum().item():.6f}"
    )


if __name__ == "__main__":
    main()
