"""A small CNN image classifier with the usual command-line training script layout.

argparse options, a shuffled training DataLoader and an ordered evaluation DataLoader,
an epoch loop that logs the loss, accuracy counted under torch.no_grad(), and a checkpoint
saved from the unwrapped model and loaded back. The images are synthetic: each class is a
bright bar at a class-specific position plus noise, so a few epochs learn it.
"""

import argparse
import logging
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    ddp_all_reduce_mean,
    ddp_all_reduce_sum,
    ddp_barrier,
    ddp_eval_sampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)

logger = logging.getLogger("cnn_trainer")


class Net(nn.Module):
    def __init__(self, num_classes=4):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def synthetic_images(num_images, num_classes, size=16, seed=0):
    generator = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, num_classes, (num_images,), generator=generator)
    images = torch.randn(num_images, 1, size, size, generator=generator)
    rows = labels * (size // num_classes)
    for i, row in enumerate(rows.tolist()):
        images[i, 0, row : row + 2, :] += 0.4
    return TensorDataset(images, labels)


def train(model, device, train_loader, optimizer, epoch, log_interval):
    model.train()
    running_loss = 0.0
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if batch_idx % log_interval == 0:
            # dp2ddp: DP030 running figure printed from this rank's shard
            logger.info(
                "Train Epoch: %d [%d/%d]\tLoss: %.4f",
                epoch, batch_idx * len(data), len(train_loader.dataset), loss.item(),
            )
    running_loss = ddp_all_reduce_mean(running_loss)
    return running_loss / len(train_loader)


def evaluate(model, device, test_loader):
    model.eval()
    correct = 0
    total = 0
    test_loss = 0.0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.cross_entropy(output, target, reduction="sum").item()
            pred = output.argmax(dim=1)
            correct += (pred == target).sum().item()
            total += target.size(0)
        test_loss, correct, total = ddp_all_reduce_sum(test_loss, correct, total)
    return test_loss / total, correct / total


def main():
    ddp_setup()
    parser = argparse.ArgumentParser(description="Synthetic-image CNN trainer")
    parser.add_argument("--batch-size", type=int, default=64, help="input batch size for training")
    parser.add_argument("--test-batch-size", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    parser.add_argument("--log-interval", type=int, default=10)
    parser.add_argument("--checkpoint", default="cnn_checkpoint.pt")
    args = parser.parse_args()

    logging.basicConfig(
        stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    torch.manual_seed(args.seed)
    device = DEVICE

    train_set = synthetic_images(1024, 4, seed=args.seed)
    test_set = synthetic_images(256, 4, seed=args.seed + 1)
    train_loader = DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(args.batch_size),
        sampler=DistributedSampler(train_set, shuffle=True),
        num_workers=args.workers,
    )
    test_loader = DataLoader(
        test_set,
        batch_size=ddp_per_rank_batch(args.test_batch_size),
        sampler=ddp_eval_sampler(test_set),
        num_workers=args.workers,
    )

    model = Net(num_classes=4)
    n_gpu = torch.cuda.device_count()
    if n_gpu > 1:
        logger.info("Using %d GPUs", n_gpu)
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)
    model.to(device)

    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

    best_acc = 0.0
    for epoch in range(1, args.epochs + 1):
        train_loader.sampler.set_epoch(epoch)
        start = time.time()
        train_loss = train(model, device, train_loader, optimizer, epoch, args.log_interval)
        test_loss, accuracy = evaluate(model, device, test_loader)
        scheduler.step()
        ddp_print(
            f"epoch {epoch}: train loss {train_loss:.4f} test loss {test_loss:.4f} "
            f"accuracy {accuracy:.3f} ({time.time() - start:.1f}s)"
        )
        if accuracy >= best_acc:
            best_acc = accuracy
            model_to_save = model.module if hasattr(model, "module") else model
            if ddp_is_main():
                torch.save(
                    {"epoch": epoch, "model": model_to_save.state_dict(), "accuracy": accuracy},
                    args.checkpoint,
                )
        ddp_barrier()

    # Reload the best weights into a fresh model and check they reproduce the accuracy.
    checkpoint = torch.load(args.checkpoint, map_location=DEVICE)
    restored = Net(num_classes=4)
    restored.load_state_dict(checkpoint["model"])
    restored.to(device)
    _, restored_acc = evaluate(restored, device, test_loader)
    ddp_print(f"restored epoch {checkpoint['epoch']} checkpoint: accuracy {restored_acc:.3f}")
    if os.path.exists(args.checkpoint) and ddp_is_main():
        print(f"checkpoint size {os.path.getsize(args.checkpoint) // 1024} KiB")
    ddp_print(f"final accuracy {best_acc:.3f}")


if __name__ == "__main__":
    main()
