"""A subclass of another module's trainer (base.py wraps both networks in its `__init__`):
the critic's loss backwards through the generator's output (not detached), then the
generator's own loss backwards through the same forward (round 34,
fourson/DeblurGAN-pytorch@41696fc). Under DDP the second backward's gradients are not
all-reduced: DP026 (before: no word, the generator's weights drifted apart across ranks)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import DdpDistributedSampler, ddp_per_rank_batch, ddp_print, ddp_setup
from base import PairTrainer


class Trainer(PairTrainer):
    def epoch(self, loader):
        for (x,) in loader:
            made = self.first(x)
            judged = self.second(made)
            critic = (judged - 1).pow(2).mean()
            self.opt_second.zero_grad()
            critic.backward(retain_graph=True)
            self.opt_second.step()
            self.opt_first.zero_grad()
            rebuilt = (made - x).pow(2).mean()
            # dp2ddp: DP026 second backward through one DDP forward
            rebuilt.backward()
            self.opt_first.step()


def main():
    ddp_setup()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 6))
    trainer = Trainer(nn.Linear(6, 6), nn.Linear(6, 1), 0.05)
    for _ in range(2):
        trainer.epoch(
            DataLoader(
                data,
                batch_size=ddp_per_rank_batch(8),
                sampler=DdpDistributedSampler(data, shuffle=False),
            ),
        )
    ddp_print(
        "weights", round(sum(p.sum().item() for p in trainer.first.parameters()), 6)
    )


if __name__ == "__main__":
    main()
