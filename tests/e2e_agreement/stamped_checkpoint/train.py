"""A checkpoint named by each rank's clock (to the microsecond), saved and loaded by
another module through an attribute (PatrickHua/SimSiam@75a7c51): every rank loads the
file rank 0 saved, whichever rank is slower (E2E_SLOW_RANK)."""

import argparse
import os
import time
from datetime import datetime

import torch
import torch.nn as nn
from stamp_eval import main as evaluate
from torch.utils.data import DataLoader, TensorDataset

args = argparse.Namespace(eval_from=None)
torch.manual_seed(0)
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=8)
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = ((model(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
    time.sleep(0.5)  # this rank reads the clock late
model_path = f"ckpt_{datetime.now().strftime('%H%M%S%f')}.pth"
torch.save(model.module.state_dict(), model_path)
args.eval_from = model_path
evaluate(args)
