"""Stop 52 (helper v4, class v4-B of qiuqiangkong/sound_event_detection_dcase2017_task4@823af88):
loaders with a batch sampler of the program's own, built in `main()`. The training loader is iterated here,
under a backward; `holdout_loader` and `extra_loader` are iterated by no loop of this module
(handed to report.predict through a list of pairs), and their names are no
evaluation set's. DataParallel's predictions covered every row of each."""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from report import predict


class Batches:
    """Lists of indices, `size` at a time, in an order of its own drawing."""

    def __init__(self, n, size, shuffle=False, seed=0):
        self.n, self.size, self.shuffle = n, size, shuffle
        self.state = np.random.RandomState(seed)

    def __iter__(self):
        order = self.state.permutation(self.n) if self.shuffle else np.arange(self.n)
        for start in range(0, self.n, self.size):
            yield order[start : start + self.size].tolist()

    def __len__(self):
        return (self.n + self.size - 1) // self.size


def main():
    torch.manual_seed(0)
    x = torch.randn(16, 3)
    y = x.sum(1, keepdim=True)
    data = TensorDataset(x, y)
    train_loader = DataLoader(data, batch_sampler=Batches(16, 4, shuffle=True))
    holdout_loader = DataLoader(data, batch_sampler=Batches(16, 4))
    extra_loader = DataLoader(data, batch_sampler=Batches(12, 4))
    model = nn.DataParallel(nn.Linear(3, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for xb, yb in train_loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    for name, loader in [("holdout", holdout_loader), ("extra", extra_loader)]:
        outputs = predict(model, loader)
        print("%s rows %d sum %.4f" % (name, len(outputs), outputs.sum().item()))
    print("weights %.4f" % model.module.weight.sum().item())


if __name__ == "__main__":
    main()
