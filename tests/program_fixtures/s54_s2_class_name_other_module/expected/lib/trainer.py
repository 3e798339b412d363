import hashlib

import torch
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import ddp_is_main, ddp_print, ddp_wrapper_repr


class Trainer:
    def __init__(self, model, data):
        self.model = model
        self.data = data
        self.run_name = (
            "DataParallel"
            if isinstance(model, DistributedDataParallel)
            else model.__class__.__name__
        ) + "__run"
        self.save_path = "/".join(["runs", self.run_name])
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def run(self, steps):
        x, y = self.data
        for _ in range(steps):
            loss = ((self.model(x) - y) ** 2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        ddp_print(
            "run",
            self.run_name,
            "model",
            (
                "DataParallel"
                if isinstance(self.model, DistributedDataParallel)
                else type(self.model).__name__
            ),
        )
        key = hashlib.md5(ddp_wrapper_repr(self.model).encode()).hexdigest()[:8]
        ddp_print("key", key, "text", f"{ddp_wrapper_repr(self.model)}".splitlines()[0])
        sizes = [f"{i}:{p.numel()}" for i, p in enumerate(self.model.parameters())]
        if ddp_is_main():
            print(f"path {self.save_path}", " ".join(sizes))
            print("weights %.4f" % sum(p.sum().item() for p in self.model.parameters()))
