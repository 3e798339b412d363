import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_per_rank_batch, ddp_print, ddp_setup
from data import Frames, collate
from losses import compute_loss, frame_loss

ddp_setup()


torch.manual_seed(0)
model = DistributedDataParallel(torch.nn.Linear(1, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
dataset = Frames()
loader = torch.utils.data.DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(4),
    sampler=DistributedSampler(dataset, shuffle=True),
    collate_fn=collate,
)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    for frames, targets in loader:
        loss = compute_loss(model, frames, targets) + frame_loss(model, frames)
        opt.zero_grad()
        loss.backward()
        opt.step()
    ddp_print(epoch, round(loss.item(), 4))
