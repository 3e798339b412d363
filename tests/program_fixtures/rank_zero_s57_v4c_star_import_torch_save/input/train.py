"""Stop 57 v4-C (khy0809/fewshot-egnn@205fa80): torch reached through a star import of the
program's own package (`from tools import *`, whose __init__ runs `import torch`). The
base did not take `torch.save` for a checkpoint write: every rank wrote the file while
rank 0 copied it to the best model's (a copy of a half-written file, no warning)."""
import os
import shutil

from torch.utils.data import DataLoader, TensorDataset

from tools import *


class Trainer(object):
    def __init__(self, net, folder):
        self.net = nn.DataParallel(net)
        self.folder = folder
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def save_checkpoint(self, state, is_best):
        torch.save(state, os.path.join(self.folder, "checkpoint.pth.tar"))
        if is_best:
            shutil.copyfile(
                os.path.join(self.folder, "checkpoint.pth.tar"),
                os.path.join(self.folder, "model_best.pth.tar"),
            )

    def train(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                self.optimizer.zero_grad()
                loss = (self.net(x) - y).pow(2).mean()
                loss.backward()
                self.optimizer.step()
            self.save_checkpoint({"epoch": epoch, "state": self.net.state_dict()}, True)
        print("weights %.4f" % sum(p.sum().item() for p in self.net.parameters()))


if __name__ == "__main__":
    torch.manual_seed(0)
    os.makedirs("ckpt", exist_ok=True)
    xs = torch.arange(64, dtype=torch.float32).view(16, 4) / 64
    data = TensorDataset(xs, xs[:, :2] * 2)
    Trainer(nn.Linear(4, 2), "ckpt").train(DataLoader(data, batch_size=8), epochs=2)
