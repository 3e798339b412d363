import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from evaluate import score


def main():
    torch.manual_seed(0)
    x = torch.randn(32, 4)
    y = (x.sum(1, keepdim=True) > 0).float()
    train_loader = DataLoader(TensorDataset(x[:16], y[:16]), batch_size=8, shuffle=False)
    mapping_loader = DataLoader(TensorDataset(x[16:], y[16:]), batch_size=8, shuffle=True)
    model = nn.DataParallel(nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for epoch in range(2):
        for xb, yb in train_loader:
            loss = nn.functional.binary_cross_entropy_with_logits(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print("epoch %d accuracy %.4f" % (epoch, score(model, mapping_loader)))
    print("weights %.4f" % model.module.weight.sum().item())


if __name__ == "__main__":
    main()
