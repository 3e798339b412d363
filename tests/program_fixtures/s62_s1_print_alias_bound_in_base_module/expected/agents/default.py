"""The base agent of s62_s1_print_alias_bound_in_base_module (GT-RIPL/Continual-Learning-
Benchmark@d78b997's agents/default.py): the log alias is bound here, `print` or a
function that does nothing, and its subclass in another module (agents/regularization.py)
calls it. `print` read as a value is `ddp_print` where it is bound, so every call of the
alias, in this module or the other, prints on rank 0 (before: only the calls in this
module were guarded, and rank 1 printed the subclass's lines)."""
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print


class Timer:
    def __init__(self):
        self.ticks = 0

    def toc(self):
        self.ticks += 1
        return float(self.ticks)


class NormalNN:
    def __init__(self, config):
        self.log = ddp_print if config["print_freq"] > 0 else lambda *args: None
        self.config = config
        self.model = DistributedDataParallel(
            nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS
        )
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=config["lr"])
        self.timer = Timer()

    def step(self, x, y):
        loss = nn.functional.mse_loss(self.model(x), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss
