import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from snapshots import export_weights, weights_exported


def main():
    torch.manual_seed(0)
    p = {"out_dir": "snapshots"}
    x = torch.randn(16, 3)
    y = x.sum(1, keepdim=True)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False)
    model = nn.DataParallel(nn.Linear(3, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        for xb, yb in loader:
            loss = ((model(xb) - yb) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        export_weights(p, model.module, epoch)
        if weights_exported(p, epoch):
            with torch.no_grad():
                for q in model.parameters():
                    q.mul_(0.5)
        print("epoch %d weights %.4f" % (epoch, sum(q.sum().item() for q in model.parameters())))
    print("weights %.4f" % sum(q.sum().item() for q in model.parameters()))


if __name__ == "__main__":
    main()
