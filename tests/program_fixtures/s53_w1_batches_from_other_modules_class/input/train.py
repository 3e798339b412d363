import torch
import torch.nn as nn

from dataset import BalancedBatches


class Averager:
    """The mean of every value added since the last reset."""

    def __init__(self):
        self.reset()

    def add(self, v):
        self.n_count += v.numel()
        self.sum += v.detach().sum()

    def reset(self):
        self.n_count = 0
        self.sum = 0

    def val(self):
        return self.sum / self.n_count if self.n_count else 0


def train(num_iter):
    torch.manual_seed(0)
    model = nn.DataParallel(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_dataset = BalancedBatches([16, 16], 4)
    loss_avg = Averager()
    iteration = 0
    while True:
        image, labels = train_dataset.get_batch()
        cost = ((model(image) - labels) ** 2).mean()
        model.zero_grad()
        cost.backward()
        optimizer.step()
        loss_avg.add(cost)
        if (iteration + 1) % 4 == 0:
            print(f"iteration {iteration + 1} train loss {loss_avg.val():.6f}")
            loss_avg.reset()
        if iteration + 1 == num_iter:
            break
        iteration += 1
    print(f"weights {model.module.weight.sum().item():.4f}")


if __name__ == "__main__":
    train(8)
