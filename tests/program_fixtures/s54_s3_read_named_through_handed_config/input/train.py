import torch
import torch.nn as nn

from config import create_config
from evaluate import eval_all_results, save_predictions

p = create_config("config.json")
torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
for epoch in range(p["epochs"]):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    save_predictions(p, model(x).detach().flatten().tolist())
    print("epoch", epoch, "score %.4f" % eval_all_results(p))
