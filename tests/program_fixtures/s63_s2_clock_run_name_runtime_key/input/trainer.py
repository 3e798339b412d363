"""The trainer copies the config's run name, a dict item read by the same run-time key, into
its own attribute and makes the run folder from it."""
import os

import torch
import torch.nn as nn

from config import KEY, cfg


class Trainer:
    def __init__(self):
        self.exp_name = cfg[KEY]
        self.run_dir = os.path.join(cfg["exp_path"], self.exp_name)
        os.makedirs(self.run_dir, exist_ok=True)
        self.net = nn.DataParallel(nn.Linear(4, 1))
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=cfg["lr"])

    def forward(self):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        for epoch in range(cfg["epochs"]):
            loss = nn.functional.mse_loss(self.net(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        torch.save(self.net.state_dict(), os.path.join(self.run_dir, "net.pt"))
