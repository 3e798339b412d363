import torch

from data import Frames, collate
from losses import compute_loss, frame_loss

torch.manual_seed(0)
model = torch.nn.DataParallel(torch.nn.Linear(1, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = torch.utils.data.DataLoader(Frames(), batch_size=4, shuffle=True, collate_fn=collate)
for epoch in range(2):
    for frames, targets in loader:
        loss = compute_loss(model, frames, targets) + frame_loss(model, frames)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, round(loss.item(), 4))
