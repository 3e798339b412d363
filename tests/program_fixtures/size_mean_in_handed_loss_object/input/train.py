import torch
import torch.nn as nn
from torch.utils.data import TensorDataset

from engine import fit
from losses import HalvedMeanLoss

torch.manual_seed(0)
data = TensorDataset(torch.randn(16, 6), torch.randn(16, 1))
model = fit(nn.Linear(6, 1), data, HalvedMeanLoss())
print("weights %.4f" % model.module.weight.pow(2).sum().item())
