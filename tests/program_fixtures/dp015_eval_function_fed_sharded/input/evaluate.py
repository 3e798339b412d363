import torch
from torch.utils.data import DataLoader, TensorDataset


class Averager:
    def __init__(self):
        self.n = 0.0
        self.v = 0.0

    def add(self, v, n=1.0):
        self.v = (self.v * self.n + v * n) / (self.n + n)
        self.n += n

    def item(self):
        return self.v


def eval_score(loader, model):
    model.eval()
    res = Averager()
    for x, y in loader:
        with torch.no_grad():
            pred = model(x)
        res.add(((pred - y) ** 2).mean().item(), x.shape[0])
    model.train()
    return res.item()


if __name__ == "__main__":
    dataset = TensorDataset(torch.randn(8, 4), torch.randn(8, 1))
    loader = DataLoader(dataset, batch_size=4)
    model = torch.nn.Linear(4, 1)
    print("result", eval_score(loader, model))
