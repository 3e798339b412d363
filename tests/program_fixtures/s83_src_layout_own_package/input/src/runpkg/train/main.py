# Run as `PYTHONPATH=src python src/runpkg/train/main.py` (or after `pip install -e .`).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from runpkg.logs import open_run


def main():
    torch.manual_seed(0)
    log = open_run("train")
    data = TensorDataset(torch.randn(32, 6), torch.randn(32, 1))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(6, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        for inputs, targets in loader:
            loss = nn.functional.mse_loss(model(inputs), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        log.info("epoch %d done", epoch)
    print("PARAMSUM", sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
