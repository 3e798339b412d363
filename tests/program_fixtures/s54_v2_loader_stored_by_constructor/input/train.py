import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from utils import Trainer


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        print("rows", x.shape[0])
        return self.fc(x)


torch.manual_seed(0)
train_data = TensorDataset(torch.randn(8, 2), torch.randn(8, 1))
batch_size = 2
gpus = [0, 1]
batch_size = batch_size * len(gpus)
train_dataloader = DataLoader(train_data, batch_size=batch_size, shuffle=False)
trainer = Trainer(Net(), train_dataloader, gpus)
trainer.train(2)
print("weights %.4f" % sum(p.abs().sum().item() for p in trainer.model.parameters()))
