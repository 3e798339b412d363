import torch.nn as nn

from utils import load_ckpt

net = nn.Linear(2, 2)
model = nn.DataParallel(net)
load_ckpt(net, "a.pth")
