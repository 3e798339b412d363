# Run from its folder (`python train.py`): `import dataset` is a sibling, so this entry is
# a script although mnist/ is a package.
import argparse
import os

import torch
import torch.nn.functional as F

import dataset
import model

parser = argparse.ArgumentParser()
parser.add_argument('--batch_size', type=int, default=16)
parser.add_argument('--epochs', type=int, default=2)
args = parser.parse_args()
torch.manual_seed(0)

train_loader, test_loader = dataset.get(batch_size=args.batch_size, num_workers=0)

net = model.mlp()
net = torch.nn.DataParallel(net)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(args.epochs):
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
    print('epoch {} accuracy {}/{}'.format(epoch, correct, len(test_loader.dataset)))
torch.save(net.state_dict(), os.path.join(os.getcwd(), 'mlp.pth'))
