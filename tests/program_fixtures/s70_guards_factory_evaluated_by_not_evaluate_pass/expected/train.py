"""Another module's loader functions (data.py: `train_batches()`, `held_out_batches()`,
neither iterated there), one epoch function for both passes: its steps under `if not
evaluate:`, the validation call `run_epoch(..., evaluate=True)`. That call switches the
steps off, so held_out_batches() is no training loader of the program: left whole in
data.py (DP015) and rank 0 prints the whole set's accuracy. Before: the negated flag was
read by neither the program's trained-factory proof nor the entry's data pass, and the
validation loader was sharded, each rank counting its half, unsaid."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

import data
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup


class Clf(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(20, 8)
        self.out = nn.Linear(8, 3)

    def forward(self, x):
        return self.out(self.emb(x))


def run_epoch(net, loader, opt, evaluate=False):
    crit = nn.CrossEntropyLoss()
    net.train(not evaluate)
    right, seen = 0, 0
    for x, y in loader:
        out = net(x)
        if not evaluate:
            opt.zero_grad()
            crit(out, y).backward()
            opt.step()
        right += (out.argmax(1) == y).sum().item()
        seen += y.size(0)
    # dp2ddp: DP030 running figure printed from this rank's shard
    return right, seen


def main():
    ddp_setup()
    torch.manual_seed(0)
    train_loader = data.train_batches()
    val_loader = data.held_out_batches()
    net = DistributedDataParallel(Clf().to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    for epoch in range(3):
        train_loader.sampler.set_epoch(epoch)
        run_epoch(net, train_loader, opt)
        right, seen = run_epoch(net, val_loader, opt, evaluate=True)
        ddp_print(f"epoch {epoch} val acc {right}/{seen}")
    ddp_print(f"weights {sum(p.sum() for p in net.parameters()).item():.4f}")


if __name__ == "__main__":
    main()
