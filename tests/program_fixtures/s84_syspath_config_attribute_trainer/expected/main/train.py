import torch
import torch.nn.functional as F
from _dp2ddp import ddp_print, ddp_setup, ddp_shard_batch
from config import settings
from engine import Engine

ddp_setup()


torch.manual_seed(0)
engine = Engine()
for epoch in range(settings.epochs):
    for x, y in engine.batches:
        x, y = ddp_shard_batch((x, y), source=engine.batches)
        loss = F.mse_loss(engine.net(x), y)
        engine.optimizer.zero_grad()
        loss.backward()
        engine.optimizer.step()
ddp_print("PARAMSUM %.6f" % sum(p.sum().item() for p in engine.net.parameters()))
