"""One epoch function runs the training and the evaluation passes (pytorch-vqa's shape):
the step is taken under `if train:`, the answers of an evaluation pass are collected and
saved with the weights, and scored against the whole split."""
import torch
from torch import nn

import data


def run(net, loader, opt, train=False):
    net.train() if train else net.eval()
    answers, idxs = [], []
    for x, y, idx in loader:
        out = net(x)
        if train:
            opt.zero_grad()
            nn.functional.cross_entropy(out, y).backward()
            opt.step()
        else:
            answers.append(out.detach().argmax(1))
            idxs.append(idx)
    if not train:
        return torch.cat(answers), torch.cat(idxs)


def main():
    torch.manual_seed(0)
    train_loader = data.get_loader(train=True)
    val_loader = data.get_loader(val=True)
    test_loader = data.get_loader(test=True)
    net = nn.DataParallel(nn.Linear(4, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    for epoch in range(2):
        run(net, train_loader, opt, train=True)
        answers, idxs = run(net, val_loader, opt, train=False)
        labels = val_loader.dataset.tensors[1][idxs]
        print(f"epoch {epoch}: {len(idxs)} answers, accuracy {(answers == labels).float().mean():.4f}")
        torch.save({"weights": net.state_dict(), "answers": answers, "idx": idxs}, "results.pth")
    answers, idxs = run(net, test_loader, opt)
    print(f"test: {len(idxs)} answers")
    torch.save({"answers": answers, "idx": idxs}, "test_answers.pth")


if __name__ == "__main__":
    main()
