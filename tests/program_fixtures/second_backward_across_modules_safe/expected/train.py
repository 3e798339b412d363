"""One forward per backward across modules: the model class's updates, a step helper called
twice per batch, and an evaluation of process() under no_grad."""
import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_setup,
)
from models import GanModel, step


class Trainer:
    def __init__(self):
        self.gan = GanModel()

    def train(self, loader):
        for (x,) in loader:
            l1_loss, fake = self.gan.process(x)
            self.gan.update_d(x, fake)
            self.gan.update_g(fake, l1_loss)
            with torch.no_grad():
                self.gan.process(x)


def main():
    ddp_setup()
    torch.manual_seed(0)
    dataset = TensorDataset(torch.randn(16, 4))
    loader = DataLoader(
        dataset,
        batch_size=ddp_per_rank_batch(4),
        sampler=DdpDistributedSampler(dataset, shuffle=False),
    )
    Trainer().train(loader)
    critic = DistributedDataParallel(
        torch.nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS
    )
    optimizer = torch.optim.SGD(critic.parameters(), lr=0.1)
    for (x,) in loader:
        step(critic, optimizer, x)
        step(critic, optimizer, x * 0.5)


if __name__ == "__main__":
    main()
