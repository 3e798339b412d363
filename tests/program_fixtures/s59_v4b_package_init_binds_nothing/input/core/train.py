import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import utils.models
from core.test import test_net


def train_net(epochs):
    model = utils.models.build()
    model.apply(utils.models.init_weights)
    if torch.cuda.is_available():
        model = nn.DataParallel(model).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    dataset = TensorDataset(torch.randn(16, 4), torch.randint(0, 2, (16,)))
    loader = DataLoader(dataset, batch_size=8)
    for epoch in range(epochs):
        for x, y in loader:
            x = utils.models.to_device(x)
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item(), test_net(model))
