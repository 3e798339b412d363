"""A sum divided by `out.size(1)` where the wrap scatters along dim 1 (time-major
batches): the size counts the rows, a hand mean, nothing said (hazards_s63_v1_sum_over_row_size
says the same quotient where the batch is dim 0 and size(1) a row's size)."""
import torch
import torch.nn as nn

from losses import StepLoss

torch.manual_seed(0)
model = nn.DataParallel(nn.Linear(3, 3), dim=1)
criterion = StepLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(5, 8, 3)
y = torch.randn(5, 8, 3)
for step in range(3):
    out = model(x)
    loss = criterion(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("weights %.4f" % sum(p.sum().item() for p in model.parameters()))
