"""An answer read from stdin at start-up names the run (issue 29).

`input()` on every rank: with the answer piped in, one rank got the line and the other
EOFError; at a terminal the other rank waited forever. The rank named by E2E_SLOW_RANK
starts 1.1 s late.
"""

import os
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
        time.sleep(1.1)
    name = input("experiment name: ").strip()
    os.makedirs(os.path.join("runs", name), exist_ok=True)
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(model.state_dict(), os.path.join("runs", name, "model.pt"))
    model.load_state_dict(torch.load(os.path.join("runs", name, "model.pt")))
    with open(f"answer{os.environ.get('RANK', '0')}.txt", "w") as f:
        f.write(name)
    runs = os.listdir("runs")
    print("runs:", runs)


if __name__ == "__main__":
    main()
