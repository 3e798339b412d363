"""v4-B: the model's module is in a folder without __init__.py (a namespace package, as
Tencent/MedicalNet's models/), imported `from nets import body`."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from nets import body


def main():
    torch.manual_seed(0)
    model = nn.DataParallel(body.build())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
    for step, (x, y) in enumerate(DataLoader(data, batch_size=4)):
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        body.report(step, loss.item())
    body.save(model.module, "last.pt")


if __name__ == "__main__":
    main()
