"""A report's forward before a wrap the original skips on CPU (FFly/pytorch-cifar10-all-in-
gpu@93d9401: `summary(model, (3, 32, 32))`, then `if device == 'cuda': model =
DataParallel(model)`, a `torch.device` compared with a string: False). The original trains
the bare model; the migration its DDP wrapper. verify numbered the models by first forward:
the report's forward took number 0 for the bare model in both runs, the DDP wrapper took 1,
and verify compared the original's model 0 with the migration's: "original: 0 samples",
NOT EQUIVALENT. A wrapper is now its module: EQUIVALENT, disjoint 4+4."""

import torch
import torch.nn as nn

BS = 8
N = 32

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x_train = torch.tensor([[float(k), k / N - 0.5] for k in range(N)]).to(device)
y_train = torch.tensor([k % 2 for k in range(N)]).to(device)
net = nn.Sequential(nn.Linear(2, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
model = net.to(device)
model(torch.rand(2, 2, device=device))  # a report's forward (torchsummary): no backward
if device == "cuda":
    model = torch.nn.DataParallel(model)
loss_fun = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    idx = torch.randperm(len(y_train), device=device)
    for i in range(0, len(idx), BS):
        i = idx[i : i + BS]
        x, y = x_train[i], y_train[i]
        p = model(x)
        optimizer.zero_grad()
        loss = loss_fun(p, y)
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}")
