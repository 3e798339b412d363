"""The training loops: a trainer holding the model class of models.py, and a critic given to
a helper of models.py."""
import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

import models
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_setup,
)
from models import critic_losses


class Trainer:
    def __init__(self):
        self.gan = models.GanModel()

    def train(self, loader):
        for (x,) in loader:
            gen_loss, dis_loss = self.gan.process(x)
            # dp2ddp: DP026 second backward through one DDP forward
            self.gan.backward(gen_loss, dis_loss)


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
        optimizer.zero_grad()
        real, fake = critic_losses(critic, x)
        real.backward()
        # dp2ddp: DP026 second backward through one DDP forward
        fake.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
