# Run from its folder (`python train.py`): `import dataset` is a sibling, so this entry is
# a script although mnist/ is a package.
import argparse
import os

import torch
import torch.nn.functional as F
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_print, ddp_setup
from torch.nn.parallel import DistributedDataParallel

import dataset
import model

ddp_setup()


parser = argparse.ArgumentParser()
parser.add_argument('--batch_size', type=int, default=16)
parser.add_argument('--epochs', type=int, default=2)
args = parser.parse_args()
torch.manual_seed(0)

train_loader, test_loader = dataset.get(batch_size=args.batch_size, num_workers=0)

net = model.mlp()
net = DistributedDataParallel(net.to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(args.epochs):
    train_loader.sampler.set_epoch(epoch)
    net.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        loss = F.cross_entropy(net(data), target)
        loss.backward()
        optimizer.step()
    net.eval()
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            correct += net(data).argmax(1).eq(target).sum().item()
    ddp_print(
        'epoch {} accuracy {}/{}'.format(epoch, correct, len(test_loader.dataset))
    )
if ddp_is_main():
    torch.save(net.state_dict(), os.path.join(os.getcwd(), 'mlp.pth'))
