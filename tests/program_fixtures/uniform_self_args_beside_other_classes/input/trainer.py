import torch
from torch.utils.data import DataLoader, TensorDataset


class Trainer:
    def __init__(self, args, model, ckpt):
        self.args = args
        self.model = model
        self.ckpt = ckpt
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.arange(32.0).view(8, 4) / 32
        self.loader = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=4)

    def train(self):
        for x, y in self.loader:
            loss = (self.model(x) - y).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def test(self, epoch):
        if not self.args.test_only:
            self.ckpt.save(self, epoch)
        state = self.ckpt.load()
        print("epoch", epoch, "saved", round(float(state["net.module.weight"].sum()), 4))
