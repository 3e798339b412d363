"""r4-C of stop 55 (dragen1860/LearningToCompare-Pytorch@be5fbbe train.py): a global batch
of 3 that 2 processes do not divide, and a shuffled validation loader read between the
training steps. Both loaders' DistributedSamplers are at epoch 0; verify counted the two
passes as one sampler repeating epoch 0's order and named "set_epoch not called"; the cause
is the batch of 3 loaded as 1 per rank."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
batchsz = 3
train = TensorDataset(torch.randn(6, 4), torch.randn(6, 1))
val = TensorDataset(torch.randn(4, 4), torch.randn(4, 1))
model = nn.DataParallel(nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(1):
    loader = DataLoader(train, batchsz, shuffle=True)
    db_val = DataLoader(val, batchsz, shuffle=True)
    print("epoch", epoch)
    for step, (x, y) in enumerate(loader):
        model.train()
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(step, loss.item())
        if step % 200 == 0:
            correct, total = 0, 0
            for vx, vy in db_val:
                model.eval()
                correct += (model(vx).sign() == vy.sign()).sum().item()
                total += vy.size(0)
            print("val acc", correct / total)
