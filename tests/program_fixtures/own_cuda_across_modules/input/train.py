import torch
from torch import nn

from nce.alias import AliasTable
from nce.bank import Bank

sampler = AliasTable(torch.ones(4))
sampler.cuda()
model = nn.DataParallel(nn.Linear(4, 3)).cuda()
bank = Bank(8, 3).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4).cuda()
for step in range(2):
    opt.zero_grad()
    loss = bank(model(x))
    loss.backward()
    opt.step()
print(sampler.draw(2).shape)
