import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_print,
    ddp_setup,
)
from evaluate import validation


def main():
    ddp_setup()
    torch.manual_seed(0)
    train_set = TensorDataset(torch.randn(64, 6), torch.randint(0, 4, (64,)))
    valid_set = TensorDataset(torch.randn(30, 6), torch.randint(0, 4, (30,)))
    train_loader = DataLoader(
        train_set,
        batch_size=ddp_per_rank_batch(16),
        sampler=DdpDistributedSampler(train_set, shuffle=False),
    )
    # dp2ddp: DP015 evaluation metrics not reduced
    valid_loader = DataLoader(valid_set, batch_size=8, shuffle=True)  # to see progress
    model = DistributedDataParallel(nn.Linear(6, 4).to(DEVICE), device_ids=DEVICE_IDS)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    best_norm = -1.0
    for epoch in range(3):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
        model.eval()
        valid_loss, accuracy, norm_distance, samples = validation(model, criterion, valid_loader)
        ddp_print(
            f"epoch {epoch} valid loss {valid_loss:.6f} accuracy {accuracy:.6f} "
            f"norm {norm_distance:.6f} samples {samples}"
        )
        if norm_distance > best_norm:
            best_norm = norm_distance
            if ddp_is_main():
                torch.save(model.state_dict(), "best_norm.pth")
    ddp_print(f"best norm {best_norm:.6f}")


if __name__ == "__main__":
    main()
