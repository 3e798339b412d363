"""An LSTM with inter-layer dropout, batches from a DataLoader."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
xs = torch.randn(32, 5, 3)
ys = torch.randn(32, 1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 6, num_layers=2, dropout=0.3, batch_first=True)
        self.out = nn.Linear(6, 1)

    def forward(self, x):
        h, _ = self.rnn(x)
        return self.out(h[:, -1])


model = nn.DataParallel(Net())
loader = DataLoader(TensorDataset(xs, ys), batch_size=8, shuffle=True)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _epoch in range(1):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
print("done")
