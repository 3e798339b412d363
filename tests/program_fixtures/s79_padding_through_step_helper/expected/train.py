import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_print, ddp_setup
from data import make_loaders

ddp_setup()


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.enc = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dropout=0.0)
        self.out = nn.Linear(8, 10)

    def forward(self, x, mask):
        return self.out(self.enc(self.emb(x), src_key_padding_mask=mask))


def step_loss(net, batch):
    x, mask = batch
    scores = net(x, mask)
    return nn.functional.cross_entropy(scores.flatten(0, 1), x.reshape(-1))


torch.manual_seed(0)
model = DistributedDataParallel(Tagger().to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
train_loader, vocab = make_loaders(4)
for epoch in range(2):
    train_loader.sampler.set_epoch(epoch)
    for batch in train_loader:
        loss = step_loss(model, batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
    ddp_print("epoch", epoch, "loss", round(loss.item(), 4))
ddp_print("weights", round(sum(p.sum().item() for p in model.parameters()), 6))
