import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class Utterances(Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.items = [torch.randn(3 + (i * 5) % 7, 4, generator=g) for i in range(16)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i], i % 3


def collate(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    padded = pad_sequence(seqs, batch_first=True)
    mask = torch.arange(padded.shape[1])[None, :] < lengths[:, None]
    return padded, mask, torch.tensor(labels)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 8, 3, padding=1)
        self.head = nn.Linear(8, 3)

    def forward(self, x, mask):
        h = self.conv(x.transpose(1, 2)).transpose(1, 2)
        h = h.mean(1)
        return self.head(h)


def main():
    torch.manual_seed(0)
    loader = DataLoader(Utterances(), batch_size=8, shuffle=True, collate_fn=collate)
    model = nn.DataParallel(Encoder())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, mask, y in loader:
            out = model(x, mask)
            loss = nn.functional.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    print("weight", round(model.module.head.weight.sum().item(), 4))


if __name__ == "__main__":
    main()
