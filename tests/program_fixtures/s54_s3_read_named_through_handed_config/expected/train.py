import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from config import create_config
from evaluate import eval_all_results, save_predictions

ddp_setup()


p = create_config("config.json")
torch.manual_seed(0)
model = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
for epoch in range(p["epochs"]):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    # dp2ddp: DP054
    save_predictions(p, model(x).detach().flatten().tolist())
    ddp_print("epoch", epoch, "score %.4f" % eval_all_results(p))
