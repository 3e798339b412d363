import hashlib

import torch


class Trainer:
    def __init__(self, model, data):
        self.model = model
        self.data = data
        self.run_name = model.__class__.__name__ + "__run"
        self.save_path = "/".join(["runs", self.run_name])
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def run(self, steps):
        x, y = self.data
        for _ in range(steps):
            loss = ((self.model(x) - y) ** 2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        print("run", self.run_name, "model", type(self.model).__name__)
        key = hashlib.md5(str(self.model).encode()).hexdigest()[:8]
        print("key", key, "text", f"{self.model!r}".splitlines()[0])
        sizes = [f"{i}:{p.numel()}" for i, p in enumerate(self.model.parameters())]
        print(f"path {self.save_path}", " ".join(sizes))
        print("weights %.4f" % sum(p.sum().item() for p in self.model.parameters()))
