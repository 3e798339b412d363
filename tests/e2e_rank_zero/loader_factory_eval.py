"""One DataLoader factory builds the training and the evaluation loader (issue 22 item 1).

As thunlp/OpenNRE@8e42fd7 (SentenceRELoader): shuffled for training, in order for
evaluation, one function; the evaluation scores predictions by position against the whole
set. Migrated before the fix, both loaders were sharded and the scoring raised IndexError
on every rank; now the evaluation call builds its loader whole (ddp_shard=False).
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_loader(dataset, batch_size, shuffle):
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle)


def evaluate(model, loader, labels):
    preds = []
    model.eval()
    with torch.no_grad():
        for (x,) in loader:
            preds.extend(model(x).argmax(1).tolist())
    correct = 0
    for i, label in enumerate(labels.tolist()):
        if preds[i] == label:
            correct += 1
    return correct / len(labels)


def main():
    torch.manual_seed(0)
    x = torch.randn(96, 8)
    y = (x.sum(1) > 0).long()
    train_set = TensorDataset(x[:64], y[:64])
    val_x, val_y = x[64:], y[64:]
    train_loader = make_loader(train_set, 16, True)
    val_loader = make_loader(TensorDataset(val_x), 16, False)
    model = nn.DataParallel(nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        model.train()
        for xb, yb in train_loader:
            loss = nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        acc = evaluate(model, val_loader, val_y)
        print(f"epoch {epoch} acc {acc:.3f}")


if __name__ == "__main__":
    main()
