"""Images optimised per batch through a frozen teacher, then a student trained on them
(happen2me/genda@858cea8's data-free distillation, stop 62 v3-D): the image optimizer
(Adam over a plain tensor, no model's) steps each rank's own share of the images, so its
steps differ between the runs by design. verify compares the student's steps only (before:
it recorded the image optimizer's as the model's: "ranks in sync NO", "the runs optimize
different parameters")."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
teacher = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
for p in teacher.parameters():
    p.requires_grad = False
teacher = nn.DataParallel(teacher)
student = nn.DataParallel(nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3)))
optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
seeds = torch.randn(32, 4)
loader = DataLoader(TensorDataset(seeds), batch_size=8)
for epoch in range(2):
    for (batch,) in loader:
        images = batch.clone().requires_grad_(True)
        image_optimizer = torch.optim.Adam([images], lr=0.05)
        for _ in range(2):
            target = teacher(images)
            image_loss = -(target[:, 0]).mean()
            image_optimizer.zero_grad()
            image_loss.backward()
            image_optimizer.step()
        images = images.detach()
        loss = ((student(images) - teacher(images)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
