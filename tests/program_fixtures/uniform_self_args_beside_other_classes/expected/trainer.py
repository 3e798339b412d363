import torch
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_barrier, ddp_per_rank_batch, ddp_print


class Trainer:
    def __init__(self, args, model, ckpt):
        self.args = args
        self.model = model
        self.ckpt = ckpt
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.arange(32.0).view(8, 4) / 32
        dataset = TensorDataset(x, x.sum(1, keepdim=True))
        self.loader = DataLoader(
            dataset,
            batch_size=ddp_per_rank_batch(4),
            sampler=DdpDistributedSampler(dataset, shuffle=False),
        )

    def train(self):
        for x, y in self.loader:
            loss = (self.model(x) - y).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def test(self, epoch):
        if not self.args.test_only:
            self.ckpt.save(self, epoch)
        ddp_barrier()
        state = self.ckpt.load()
        ddp_print(
            "epoch", epoch, "saved", round(float(state["net.module.weight"].sum()), 4)
        )
