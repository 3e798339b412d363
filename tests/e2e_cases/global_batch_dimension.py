"""Fresh round stop 31, class T1 (soobinseo/Tacotron-pytorch's GO frame): inside the loop over
a loader of batch_size=B, `np.zeros([B, n, 1])` concatenated in front of the batch's frames
and `torch.full((B, 1), v)` as a target term. Migrated, each rank's batch is B / 2: numpy
refused the concatenation on both ranks at the first step. Now the dimension is read per
rank (ddp_per_rank_batch(B)): the original's weights."""

import argparse

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=4)
args = parser.parse_args([])

torch.manual_seed(0)
frames = torch.randn(16, 3, 5)
loader = DataLoader(TensorDataset(frames), batch_size=args.batch_size, drop_last=True)
model = nn.DataParallel(nn.Linear(15, 15))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _epoch in range(2):
    for (mel,) in loader:
        go = np.zeros([args.batch_size, 3, 1], dtype=np.float32)
        mel_input = torch.from_numpy(np.concatenate((go, mel.numpy()[:, :, :-1]), axis=2))
        shift = torch.full((args.batch_size, 1), 0.1)
        out = model(mel_input.reshape(mel_input.size(0), -1))
        loss = nn.functional.l1_loss(out, mel.reshape(mel.size(0), -1) + shift)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
E2E_DIGEST = [round(float(p.detach().sum()), 5) for p in model.parameters()]
print("final", E2E_DIGEST)
