# The training step runs in the program's own scaler, handed the loss and an optimizer
# another module of the program builds (`optim_factory.build_optimizer(lr, model)`), and an
# EMA of the weights is updated under no_grad() in the training loop (stop 50 s2's "Noticed
# and left": the base read the loop as an evaluation, left the loader whole with DP015, and
# every rank trained all 16 samples). E2E_DIGEST: the sample ids this process trained on.
import torch
from torch import nn
from optim_factory import build_optimizer
from torch.utils.data import DataLoader, TensorDataset
from torch.nn.parallel import DistributedDataParallel
from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)


ddp_setup()


class Scaler:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cpu")

    def __call__(self, loss, optimizer):
        self._scaler.scale(loss).backward()
        self._scaler.step(optimizer)
        self._scaler.update()


torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 4), torch.randn(16, 1), torch.arange(16))
loader = DataLoader(
    data,
    batch_size=ddp_per_rank_batch(4),
    sampler=DdpDistributedSampler(data, shuffle=False),
)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
ema = [p.detach().clone() for p in model.parameters()]
optimizer = build_optimizer(0.1, model)
loss_scaler = Scaler()
seen = []
for epoch in range(2):
    for x, y, ids in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss_scaler(loss, optimizer)
        seen.extend(ids.tolist())
        with torch.no_grad():
            for e, p in zip(ema, model.parameters()):
                e.mul_(0.9).add_(p, alpha=0.1)
    ddp_print("epoch", epoch, "ema %.4f" % sum(e.sum().item() for e in ema))
ddp_print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
E2E_DIGEST = seen
