import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from fitting import Trainer

torch.manual_seed(0)
x = torch.randn(16, 3)
y = x.sum(1, keepdim=True)
loader = DataLoader(TensorDataset(x, y), batch_size=4)
model = nn.DataParallel(nn.Linear(3, 1))
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
trainer.train_epoch(loader)
print("seen", trainer.seen, "correct", trainer.correct)
print("loss", round(trainer.total_loss / trainer.seen, 4))
print("weights", [round(v, 4) for v in model.module.weight.detach().flatten().tolist()])
