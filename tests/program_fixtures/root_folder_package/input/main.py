"""The repository's root folder is itself a package (an `__init__.py` beside main.py,
ShichenLiu/CondenseNet@833a91d), and main.py imports its siblings by bare name
(`from data.loaders import ...`): it runs as `python main.py`, not as `python -m <folder>.main`;
its modules are the script's (data.loaders, the helpers as `_dp2ddp`)."""

import torch
import torch.nn as nn

from data.loaders import train_loader


def main():
    model = nn.DataParallel(nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in train_loader(8):
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()


if __name__ == "__main__":
    main()
