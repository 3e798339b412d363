import torch
import torch.nn as nn
from corpus import Corpus
from torch.nn.parallel import DistributedDataParallel

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_all_reduce_sum, ddp_print, ddp_setup

ddp_setup()


def train(model, train_loader, opt):
    far = 0
    for x, y in train_loader:
        out = model(x)
        loss = ((out - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        far += ((out - y).abs() > 0.5).sum().item()
    far = ddp_all_reduce_sum(far)
    return far / len(train_loader.dataset)


torch.manual_seed(0)
corpus = Corpus()
loader = corpus.get_train_loader(batch_size=8)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    loader.sampler.set_epoch(epoch)
    ddp_print("epoch %d far %.4f" % (epoch, train(model, loader, opt)))
ddp_print("weights %.4f" % model.module.weight.sum().item())
