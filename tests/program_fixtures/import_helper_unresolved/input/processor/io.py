import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class IO:
    def __init__(self, argv):
        torch.manual_seed(0)
        data = TensorDataset(torch.randn(32, 4), torch.randint(0, 2, (32,)))
        self.loader = DataLoader(data, batch_size=8, shuffle=True)
        self.model = nn.DataParallel(nn.Linear(4, 2))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
