import os
import pickle
import shutil
import tempfile
from functools import partial

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from merge import merge_saved

torch.manual_seed(0)
inputs = torch.randn(16, 4)
targets = inputs.sum(1, keepdim=True)
loader = DataLoader(TensorDataset(inputs, targets), batch_size=8)
model = nn.DataParallel(nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()



def save_part(folder, part):
    """One part of the results (argoverse-forecasting's infer_helper, run by joblib)."""
    with open(os.path.join(folder, f"{part}.pkl"), "wb") as out:
        pickle.dump({part: round(model.module.bias.item() + part, 4)}, out)


temp_save_dir = tempfile.mkdtemp()
list(map(partial(save_part, temp_save_dir), range(2)))
merged = merge_saved(temp_save_dir, "merged.pkl")
shutil.rmtree(temp_save_dir)
print("merged", merged)
print("weights %.4f" % model.module.weight.sum().item())
