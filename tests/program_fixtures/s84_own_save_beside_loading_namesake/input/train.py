import torch
from kit.runner import Runner
from kit.tools import announce
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
rows = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
runner = Runner(torch.nn.Linear(4, 1), DataLoader(rows, batch_size=8, shuffle=False))
announce("start")
runner.fit()
print("PARAMSUM %.6f" % sum(p.sum().item() for p in runner.net.parameters()))
