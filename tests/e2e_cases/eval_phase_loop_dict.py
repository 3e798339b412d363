"""Issue 28, loaders as items of a dict read by a phase loop (`for phase in ["train", "val"]:
... for inputs, labels in dataloaders[phase]`): the val loop is found, its counters are summed
over the ranks after the loop and divided by the whole dataset, so each rank's figures are
the original's (before: the val loader sharded as a training loader, each rank printing its
own half)."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
model = nn.DataParallel(nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3)))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
generator = torch.Generator().manual_seed(1)
train_set = TensorDataset(torch.randn(16, 6, generator=generator), torch.arange(16) % 3)
val_set = TensorDataset(torch.randn(10, 6, generator=generator), torch.arange(10) % 3)
dataloaders = {}
dataloaders["train"] = DataLoader(train_set, batch_size=4, shuffle=False)
dataloaders["val"] = DataLoader(val_set, batch_size=4)
FIGURES = []
for epoch in range(2):
    for phase in ["train", "val"]:
        if phase == "train":
            model.train()
        else:
            model.eval()
        running_loss = 0.0
        running_corrects = 0
        for inputs, labels in dataloaders[phase]:
            optimizer.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                outputs = model(inputs)
                loss = nn.functional.cross_entropy(outputs, labels)
                if phase == "train":
                    loss.backward()
                    optimizer.step()
            running_loss += loss.item() * inputs.size(0)
            running_corrects += int((outputs.argmax(1) == labels).sum())
        size = len(dataloaders[phase].dataset)
        if phase == "val":
            FIGURES += [round(running_loss / size, 4), running_corrects / size]
        print(epoch, phase, running_loss / size, running_corrects / size)
E2E_DIGEST = FIGURES
print("final", E2E_DIGEST)
