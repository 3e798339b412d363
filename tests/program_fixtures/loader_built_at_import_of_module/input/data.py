"""Pattern: zhilin007/FFA-Net@6651bcf's data_utils.py (class S1, stop 34). The training
loader is built when the module is imported, beside an evaluation loader; the entry
imports both."""

import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
train_set = TensorDataset(torch.randn(16, 3), torch.randn(16, 1))
train_loader = DataLoader(train_set, batch_size=4, shuffle=True)
test_set = TensorDataset(torch.randn(4, 3), torch.randn(4, 1))
test_loader = DataLoader(test_set, batch_size=1)
