import torch
import torch.nn as nn

from data import make_loaders


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.enc = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dropout=0.0)
        self.out = nn.Linear(8, 10)

    def forward(self, x, mask):
        return self.out(self.enc(self.emb(x), src_key_padding_mask=mask))


def step_loss(net, batch):
    x, mask = batch
    scores = net(x, mask)
    return nn.functional.cross_entropy(scores.flatten(0, 1), x.reshape(-1))


torch.manual_seed(0)
model = nn.DataParallel(Tagger())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
train_loader, vocab = make_loaders(4)
for epoch in range(2):
    for batch in train_loader:
        loss = step_loss(model, batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("epoch", epoch, "loss", round(loss.item(), 4))
print("weights", round(sum(p.sum().item() for p in model.parameters()), 6))
