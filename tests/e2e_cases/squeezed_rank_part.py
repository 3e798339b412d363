"""A test loop squeezing the model's output with no dim (`torch.squeeze(output3)`) under
a sharded test loader: 6 test samples in batches of 4 leave each of 2 ranks a last batch
of 1, whose batch dim the squeeze dropped (JiaRenChang/PSMNet@87ac909, class P2: before,
IndexError at `output[mask]` on both ranks). Now the batch dim is kept (ddp_squeeze)."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
train = TensorDataset(torch.randn(8, 1, 4, 4), torch.randn(8, 4, 4))
held_out = TensorDataset(torch.randn(6, 1, 4, 4), torch.randn(6, 4, 4))
train_loader = DataLoader(train, batch_size=4, shuffle=False)
test_loader = DataLoader(held_out, batch_size=4, shuffle=False)
model = nn.DataParallel(nn.Conv2d(1, 1, 3, padding=1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


for _epoch in range(2):
    model.train()
    for img, disp in train_loader:
        loss = ((model(img).squeeze(1) - disp) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
total = 0
model.eval()
for img, disp_true in test_loader:
    with torch.no_grad():
        output3 = model(img)
    output = torch.squeeze(output3)
    mask = disp_true < 10
    total += torch.abs(output[mask] - disp_true[mask]).sum().item()
print("test error", total)
E2E_DIGEST = [round(total, 3)] + [round(float(p.detach().sum()), 5) for p in model.parameters()]
