"""Sample images written through a colour conversion (SR3's validation images, stop 39
v2-A: `cv2.imwrite(path, cv2.cvtColor(img, cv2.COLOR_RGB2BGR))` stayed on every rank and
both ranks wrote each PNG). cv2 is the stand-in in stand_ins/: it records who wrote what.
"""

import cv2
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def save_img(img, img_path):
    cv2.imwrite(img_path, cv2.cvtColor(img, cv2.COLOR_RGB2BGR))


torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 4), torch.randn(16, 3))
loader = DataLoader(data, batch_size=8, shuffle=True)
model = nn.DataParallel(nn.Linear(4, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        out = model(torch.ones(2, 4)).numpy().reshape(2, 1, 3)
    save_img((out * 100).astype(np.int64), "sample_%d.png" % epoch)
