"""A solver handed its loaders in a dict (the sharded training loader beside the whole
validation one): the loop's running figure over the training loader is this rank's share
(DP030 stays; data_s72_falsewarn_whole_subclass_loader_dict is the whole case)."""

import torch

from _dp2ddp import ddp_is_main, ddp_print


class Solver:
    def __init__(self, data, model, optimizer):
        self.tr_loader = data["tr_loader"]
        self.cv_loader = data["cv_loader"]
        self.model = model
        self.optimizer = optimizer

    def train(self, epochs):
        for epoch in range(epochs):
            tr = self._run_one_epoch()
            with torch.no_grad():
                cv = self._run_one_epoch(cross_valid=True)
            ddp_print(f"epoch {epoch} train {tr:.6f} valid {cv:.6f}")

    def _run_one_epoch(self, cross_valid=False):
        total_loss = 0
        data_loader = self.tr_loader if not cross_valid else self.cv_loader
        for i, (x, y) in enumerate(data_loader):
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            if not cross_valid:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            total_loss += loss.item()
            if i % 2 == 0 and ddp_is_main():
                # dp2ddp: DP030 running figure printed from this rank's shard
                print(f"iter {i + 1} average {total_loss / (i + 1):.6f}")
        # dp2ddp: DP030 running figure printed from this rank's shard
        return total_loss / (i + 1)
