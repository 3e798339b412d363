"""Issue 28, round 20 (stop 67: Kaixin-Wu/NEU_NMT_v2's translate step): the wrap, under a
device guard, is handed to another module's function that calls a method of the model's
own class on it (decoding.py)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from decoding import decode


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)

    def greedy(self, x):
        return self.fc(x).argmax(-1)


torch.manual_seed(0)
data = TensorDataset(torch.randn(8, 4), torch.randint(0, 3, (8,)))
model = Net()
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    for x, y in DataLoader(data, batch_size=4):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("epoch", epoch, "decoded", decode(model, torch.ones(2, 4)).tolist())
print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
