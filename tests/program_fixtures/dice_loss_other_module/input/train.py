import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from utils import DiceLoss

torch.manual_seed(0)
model = nn.DataParallel(nn.Conv2d(1, 2, 3, padding=1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ce = nn.CrossEntropyLoss()
dice_loss = DiceLoss(2)
x = torch.randn(8, 1, 6, 6)
y = (x > 0).long().squeeze(1)
onehot = torch.nn.functional.one_hot(y, 2).permute(0, 3, 1, 2)
for xb, yb, ob in DataLoader(TensorDataset(x, y, onehot), batch_size=4):
    outputs = model(xb)
    loss = 0.5 * ce(outputs, yb) + 0.5 * dice_loss(outputs, ob)
    opt.zero_grad()
    loss.backward()
    opt.step()
