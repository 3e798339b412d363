"""Validation between training steps, with `model.module.eval()` / `model.module.train()`:
the wrapper's own flag stays set while its module evaluates (issue 22 item 2's left-over).
The rest as validation_between_steps_dp.py:

swz30/MPRNet@43feb2a (Deraining/train.py): the loaders yield (target, input), so no model
input is a batch's first tensor and verify compares the DataLoader batches instead; after
each epoch `model.eval()` and a pass over the validation loader, which migrate leaves whole
(its scores are a list: DP015), so every rank loads all of it. With --steps 3 the third step
is the first of epoch 2, after validation: verify counted the validation batches as that
step's training data ("ranks overlap", "DistributedSampler padded the last batch"). Only
batches loaded while a wrapped model trains feed a compared step.
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(0)
    clean = torch.randn(32, 6)
    noisy = clean + 0.1 * torch.randn(32, 6)
    train_loader = DataLoader(TensorDataset(clean[:16], noisy[:16]), batch_size=8, shuffle=True)
    val_loader = DataLoader(TensorDataset(clean[16:], noisy[16:]), batch_size=8, shuffle=False)
    model = nn.DataParallel(nn.Linear(6, 6))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        model.module.train()
        for target, input_ in train_loader:
            loss = ((model(input_) - target) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.module.eval()
        scores = []
        for target, input_ in val_loader:
            with torch.no_grad():
                restored = model(input_)
            for res, tar in zip(restored, target, strict=True):
                scores.append(((res - tar) ** 2).mean())
        print(f"epoch {epoch} val {torch.stack(scores).mean().item():.4f}")


if __name__ == "__main__":
    main()
