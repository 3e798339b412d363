import torch
from torch.utils.data import DataLoader


def fit(model, train_set, criterion, epochs=2, batch=4):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model = torch.nn.DataParallel(model)
    loader = DataLoader(train_set, batch_size=batch, shuffle=True)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    return model
