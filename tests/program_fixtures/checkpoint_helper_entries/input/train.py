"""Folder mode, entries sharing a load helper (issue 16): train.py's program saves in
trainer.py's fit(), test.py's saves nothing. utils.load_ckpt() sees no call of a saving
function before its load and stays as written in both programs (a barrier there would
migrate the shared module two ways: an error). Here, where the call of fit() is seen, the
call of load_ckpt() after it is a load and gets the ddp_barrier(); the reload after that
needs none."""
import torch
import torch.nn as nn

from trainer import fit
from utils import load_ckpt

net = nn.Linear(2, 2)
model = nn.DataParallel(net)
fit(net, "a.pth")
load_ckpt(net, "a.pth")
net.load_state_dict(torch.load("a.pth"))
