import os
import pickle
import shutil
import tempfile
from functools import partial

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from _dp2ddp import (
    DEVICE,
    DEVICE_IDS,
    DdpDistributedSampler,
    ddp_barrier,
    ddp_is_main,
    ddp_per_rank_batch,
    ddp_rank0_value,
    ddp_setup,
)
from merge import merge_saved

ddp_setup()


torch.manual_seed(0)
inputs = torch.randn(16, 4)
targets = inputs.sum(1, keepdim=True)
dataset = TensorDataset(inputs, targets)
loader = DataLoader(
    dataset,
    batch_size=ddp_per_rank_batch(8),
    sampler=DdpDistributedSampler(dataset, shuffle=False),
)
model = DistributedDataParallel(nn.Linear(4, 1).to(DEVICE), device_ids=DEVICE_IDS)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()



def save_part(folder, part):
    """One part of the results (argoverse-forecasting's infer_helper, run by joblib)."""
    if ddp_is_main():
        with open(os.path.join(folder, f"{part}.pkl"), "wb") as out:
            pickle.dump({part: round(model.module.bias.item() + part, 4)}, out)


temp_save_dir = ddp_rank0_value(tempfile.mkdtemp)
list(map(partial(save_part, temp_save_dir), range(2)))
merged = merge_saved(temp_save_dir, "merged.pkl")
ddp_barrier()
if ddp_is_main():
    shutil.rmtree(temp_save_dir)
    print("merged", merged)
    print("weights %.4f" % model.module.weight.sum().item())
