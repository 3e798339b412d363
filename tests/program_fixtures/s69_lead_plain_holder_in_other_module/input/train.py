import torch
import torch.nn as nn

from parts.critics import Critic, ValueBaseline

torch.manual_seed(0)
actor = nn.DataParallel(nn.Linear(4, 4))
baseline = ValueBaseline(Critic())
opt = torch.optim.Adam(
    [{"params": actor.parameters()}, {"params": baseline.trainable(), "lr": 0.01}], lr=0.01
)
data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16))
for x, reward in torch.utils.data.DataLoader(data, batch_size=4):
    value = baseline.critic(actor(x))
    loss = ((value - reward) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("weights %.6f" % sum(p.sum().item() for p in baseline.critic.parameters()))
