# The loop's step is a method of a trainer object whose class is in another module, and
# the loop also samples the model under no_grad() on fixed inputs: it trains.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from gan_trainer import Trainer

torch.manual_seed(0)
data = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
loader = DataLoader(data, batch_size=8, shuffle=False)
model = nn.DataParallel(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)))
trainer = Trainer(model)
fixed = torch.linspace(-1, 1, 8).view(2, 4)
for epoch in range(3):
    for x, y in loader:
        trainer.train_step(x, y)
        with torch.no_grad():
            snapshot = trainer.model(fixed)
print("last snapshot %.5f" % snapshot.sum().item())
print("weight sum %.5f" % sum(p.sum().item() for p in model.parameters()))
