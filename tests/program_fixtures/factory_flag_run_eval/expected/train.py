"""One epoch function runs the training and the evaluation passes (pytorch-vqa's shape):
the step is taken under `if train:`, the answers of an evaluation pass are collected and
saved with the weights, and scored against the whole split."""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

import data
from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_setup


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
    ddp_setup()
    torch.manual_seed(0)
    train_loader = data.get_loader(train=True)
    # dp2ddp: DP015 evaluation metrics not reduced
    val_loader = data.get_loader(val=True, ddp_shard=False)
    # dp2ddp: DP015 evaluation metrics not reduced
    test_loader = data.get_loader(test=True, ddp_shard=False)
    net = DistributedDataParallel(nn.Linear(4, 2).to(DEVICE), device_ids=DEVICE_IDS)
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    for epoch in range(2):
        train_loader.sampler.set_epoch(epoch)
        run(net, train_loader, opt, train=True)
        answers, idxs = run(net, val_loader, opt, train=False)
        labels = val_loader.dataset.tensors[1][idxs]
        if ddp_is_main():
            print(
                f"epoch {epoch}: {len(idxs)} answers, accuracy "
                f"{(answers == labels).float().mean():.4f}"
            )
            torch.save(
                {"weights": net.state_dict(), "answers": answers, "idx": idxs},
                "results.pth",
            )
    answers, idxs = run(net, test_loader, opt)
    if ddp_is_main():
        print(f"test: {len(idxs)} answers")
        torch.save({"answers": answers, "idx": idxs}, "test_answers.pth")


if __name__ == "__main__":
    main()
