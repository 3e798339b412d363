"""A summed loss divided by a count handed in (patelrajnath/pytorch-dl@008c0e9
dataset/iwslt_data.py:101, 133-134, 147: `loss = self.criterion(...) / norm`, `norm =
batch.ntokens` the batch's target tokens that are not padding): a mean over a count the
data decides (DP136), and the summed loss's DP004 names the division (not to multiply)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from losses import LossCompute, TokenLoss

PAD = 0


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(6, 4)

    def forward(self, src):
        return self.emb(src)


def make_data():
    g = torch.Generator().manual_seed(5)
    src = torch.randint(1, 6, (8, 6), generator=g)
    trg = torch.randint(1, 6, (8, 6), generator=g)
    for i, n in enumerate([1, 6, 2, 2, 6, 1, 3, 6]):
        trg[i, n:] = PAD
    return TensorDataset(src, trg)


def main():
    torch.manual_seed(0)
    model = nn.DataParallel(Tagger())
    generator = nn.Linear(4, 6)
    params = list(model.parameters()) + list(generator.parameters())
    optimizer = torch.optim.SGD(params, lr=0.5)
    criterion = TokenLoss(PAD)
    compute_loss = LossCompute(generator, criterion, optimizer)
    loader = DataLoader(make_data(), batch_size=4, shuffle=False)
    for epoch in range(2):
        for src, trg in loader:
            out = model(src)
            ntokens = (trg != PAD).sum()
            compute_loss(out, trg, ntokens)
    print("weights %.4f %.4f" % (model.module.emb.weight.sum().item(), generator.weight.sum().item()))


if __name__ == "__main__":
    main()
