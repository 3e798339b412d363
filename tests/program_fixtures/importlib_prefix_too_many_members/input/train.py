"""A module imported by a computed name nothing bounds, `"nets." + sys.argv[1]`, from a
package holding more modules than are read for one call (MEMBER_LIMIT): DP073 at the call
names the modules left unread (before stop 46: left unread without a word)."""
import importlib
import sys

import torch

net = importlib.import_module("nets." + sys.argv[1])
model = torch.nn.DataParallel(torch.nn.Linear(4, 1))
print(model(torch.randn(2, 4)).shape)
