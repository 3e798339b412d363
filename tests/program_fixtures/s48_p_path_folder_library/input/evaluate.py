"""A second entry of the project, in another folder than the migrated one: it puts lib/ on
sys.path and imports the library's module, which dp2ddp migrated with the other entry."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))

import torch

from trainer import report

torch.manual_seed(0)
net = torch.nn.Linear(4, 1)
report("eval", net(torch.randn(8, 4)).pow(2).mean().item())
