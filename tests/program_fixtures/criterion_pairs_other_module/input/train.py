import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from criteria import BatchCriterion

torch.manual_seed(0)
net = nn.DataParallel(nn.Linear(6, 4))
criterion = BatchCriterion(0.5, 4)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = torch.randn(16, 6)


def train():
    for x, idx in DataLoader(TensorDataset(data, torch.arange(16)), batch_size=4):
        inputs = torch.cat((x + 0.01, x - 0.01), 0)
        features = net(inputs)
        loss = criterion(features, idx)
        opt.zero_grad()
        loss.backward()
        opt.step()


train()
