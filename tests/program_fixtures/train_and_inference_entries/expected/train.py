import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import ddp_per_rank_batch, ddp_print, ddp_setup
from models import create_model
from options import parse

ddp_setup()


opt = parse(is_train=True)
torch.manual_seed(0)
data = TensorDataset(torch.randn(64, 8), torch.randn(64, 8))
loader = DataLoader(
    data,
    batch_size=ddp_per_rank_batch(16),
    sampler=DistributedSampler(data, shuffle=True),
)
model = create_model(opt)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(opt.niter):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        optimizer.zero_grad()
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
    ddp_print("epoch %d loss %.4f" % (epoch, loss.item()))
E2E_DIGEST = [round(p.sum().item(), 6) for p in model.parameters()]
