"""Batches cut from tensors held whole by an index tensor (FFly/pytorch-cifar10-all-in-gpu@
93d9401, round 14 v4): an unseeded `torch.randperm` each epoch, the range loop's counter
rebound to the index slice (`i = idx[i:i + BS]`), `x, y = x_train[i], y_train[i]`, then a
transform of the batch. `torch.backends.cudnn.benchmark = True` writes an attribute of the
module `torch`; before, that write made `torch` no import to the flow (`torch.tensor(...)`
read as a method of a value) and the batch one nobody could split: DP047, every rank
trained every batch of its own permutation (DP006). Now the permutation is drawn alike
(ddp_same_random, no DP006) and each rank takes its contiguous part of each batch, as
DataParallel scattered it. E2E_DIGEST: the sample ids each rank trained on, in order."""

import torch
import torch.nn as nn

BS = 8
N = 32
E2E_DIGEST = []

torch.backends.cudnn.benchmark = True
x_train = torch.tensor([[float(k), k / N - 0.5] for k in range(N)])
y_train = torch.tensor([k % 2 for k in range(N)])
net = nn.Linear(2, 2)
with torch.no_grad():
    net.weight.fill_(0.1)
    net.bias.zero_()
model = nn.DataParallel(net)
loss_fun = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    steps = 0
    idx = torch.randperm(len(y_train))
    for i in range(0, len(idx), BS):
        i = idx[i : i + BS]
        x, y = x_train[i], y_train[i]
        x = x * 1.0
        p = model(x)
        E2E_DIGEST.extend(int(v) for v in x[:, 0])
        optimizer.zero_grad()
        loss = loss_fun(p, y)
        loss.backward()
        optimizer.step()
        steps += 1
    print(f"epoch {epoch} steps {steps}")
