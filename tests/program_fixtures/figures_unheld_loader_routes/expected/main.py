import torch
import torch.nn as nn

from _dp2ddp import ddp_print, ddp_setup
from data import get_loaders
from trainer import Trainer


def main():
    ddp_setup()
    torch.manual_seed(0)
    loaders = get_loaders(4)
    trainer = Trainer(nn.Linear(4, 1), loaders)
    for epoch in range(2):
        trainer.train()
        trainer.fit_epoch(loaders["train"])
    ddp_print(f"weights {trainer.model.module.weight.sum().item():.4f}")


if __name__ == "__main__":
    main()
