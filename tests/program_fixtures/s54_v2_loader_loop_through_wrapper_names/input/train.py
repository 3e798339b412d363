import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from engine import do_training_epoch, do_validation_epoch

torch.manual_seed(0)
train_set = TensorDataset(torch.randn(8, 2), torch.randn(8, 1))
probe_set = TensorDataset(torch.randn(8, 2), torch.randn(8, 1))
train_loader = DataLoader(train_set, batch_size=4, shuffle=False)
probe_loader = DataLoader(probe_set, batch_size=4, shuffle=True)
model = nn.DataParallel(nn.Linear(2, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    train_loss = do_training_epoch(train_loader, model, optimizer)
    probe_loss = do_validation_epoch(probe_loader, model)
    print(f"epoch {epoch} train_loss={train_loss:.4f} probe_loss={probe_loss:.4f}")
print("weights %.4f" % sum(p.abs().sum().item() for p in model.parameters()))
