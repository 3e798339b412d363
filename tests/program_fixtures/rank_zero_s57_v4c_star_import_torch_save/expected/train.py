"""Stop 57 v4-C (khy0809/fewshot-egnn@205fa80): torch reached through a star import of the
program's own package (`from tools import *`, whose __init__ runs `import torch`). The
base did not take `torch.save` for a checkpoint write: every rank wrote the file while
rank 0 copied it to the best model's (a copy of a half-written file, no warning)."""
import os
import shutil

from torch.utils.data import DataLoader, TensorDataset

from tools import *

# isort: split
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)

ddp_setup()


class Trainer(object):
    def __init__(self, net, folder):
        self.net = DistributedDataParallel(net.to(DEVICE), device_ids=DEVICE_IDS)
        self.folder = folder
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def save_checkpoint(self, state, is_best):
        if ddp_is_main():
            torch.save(state, os.path.join(self.folder, "checkpoint.pth.tar"))
        if is_best and ddp_is_main():
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
        ddp_print("weights %.4f" % sum(p.sum().item() for p in self.net.parameters()))


if __name__ == "__main__":
    torch.manual_seed(0)
    os.makedirs("ckpt", exist_ok=True)
    xs = torch.arange(64, dtype=torch.float32).view(16, 4) / 64
    data = TensorDataset(xs, xs[:, :2] * 2)
    Trainer(nn.Linear(4, 2), "ckpt").train(
        DataLoader(
            data,
            batch_size=ddp_per_rank_batch(8),
            sampler=DdpDistributedSampler(data, shuffle=False),
        ),
        epochs=2,
    )
