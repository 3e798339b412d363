import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_setup,
)
from fitting import Trainer

ddp_setup()


torch.manual_seed(0)
x = torch.randn(16, 3)
y = x.sum(1, keepdim=True)
dataset = TensorDataset(x, y)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
model = DistributedDataParallel(nn.Linear(3, 1).to(DEVICE), device_ids=DEVICE_IDS)
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
trainer.train_epoch(loader)
if ddp_is_main():
    # dp2ddp: DP030 running figure printed from this rank's shard
    print("seen", trainer.seen, "correct", trainer.correct)
    # dp2ddp: DP030 running figure printed from this rank's shard
    print("loss", round(trainer.total_loss / trainer.seen, 4))
    print(
        "weights",
        [round(v, 4) for v in model.module.weight.detach().flatten().tolist()],
    )
