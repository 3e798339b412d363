import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from engine import Trainer

torch.manual_seed(0)
rows = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
loader = DataLoader(rows, batch_size=8, shuffle=False)
model = nn.DataParallel(nn.Linear(4, 1))
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
trainer.train(train_data=loader, epochs=2)
print("weights %.6f" % sum(p.sum().item() for p in model.parameters()))
