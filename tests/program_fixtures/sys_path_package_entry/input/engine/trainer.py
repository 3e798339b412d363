import torch
from torch.utils.data import DataLoader, TensorDataset


def fit(model):
    data = TensorDataset(torch.arange(32.0).view(16, 2), torch.arange(16) % 2)
    loader = DataLoader(data, batch_size=8, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    seen = []
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        seen += x[:, 0].tolist()
    print("done", len(seen))
    return {"train": seen, "weight": model.module.weight.sum().item()}
