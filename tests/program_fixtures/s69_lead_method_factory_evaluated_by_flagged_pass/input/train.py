import torch
import torch.nn as nn
from episodes import DS


class Clf(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(20, 8)
        self.out = nn.Linear(8, 3)

    def forward(self, x):
        return self.out(self.emb(x))


def run_epoch(net, loader, opt, train=False):
    crit = nn.CrossEntropyLoss()
    net.train(train)
    accs = []
    for x, y in loader:
        out = net(x)
        if train:
            opt.zero_grad()
            crit(out, y).backward()
            opt.step()
        else:
            accs.append((out.argmax(1) == y).float().mean().item())
    return accs


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    train_ds = DS(torch.randint(0, 20, (8, 5), generator=g), torch.randint(0, 3, (8,), generator=g))
    eval_ds = DS(torch.randint(0, 20, (8, 5), generator=g), torch.randint(0, 3, (8,), generator=g))
    train_loader = train_ds.get_loader()
    eval_loader = eval_ds.get_loader()
    net = nn.DataParallel(Clf())
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    for epoch in range(2):
        run_epoch(net, train_loader, opt, train=True)
        accs = run_epoch(net, eval_loader, opt, train=False)
        print(f"epoch {epoch} eval acc {sum(accs) / len(accs):.4f} over {len(accs)} batches")
    print(f"weights {sum(p.sum() for p in net.parameters()).item():.6f}")


if __name__ == "__main__":
    main()
