"""The training loops: a trainer holding the model class of models.py, and a critic given to
a helper of models.py."""
import torch
from torch.utils.data import DataLoader, TensorDataset

import models
from models import critic_losses


class Trainer:
    def __init__(self):
        self.gan = models.GanModel()

    def train(self, loader):
        for (x,) in loader:
            gen_loss, dis_loss = self.gan.process(x)
            self.gan.backward(gen_loss, dis_loss)


def main():
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(16, 4)), batch_size=4)
    Trainer().train(loader)
    critic = torch.nn.DataParallel(torch.nn.Linear(4, 1))
    optimizer = torch.optim.SGD(critic.parameters(), lr=0.1)
    for (x,) in loader:
        optimizer.zero_grad()
        real, fake = critic_losses(critic, x)
        real.backward()
        fake.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
