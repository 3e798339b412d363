"""Stop 57 (WiseDoge/CoupletAI@fc052f8 under torch >= 2.6; a rank reading a checkpoint
another writes): torch.load of a file that is no checkpoint. verify said "the original
failed under verify's seeding"."""

import torch
from torch import nn

model = nn.DataParallel(nn.Linear(4, 1))
with open("weights.pt", "w") as handle:
    handle.write("not a checkpoint")
model.load_state_dict(torch.load("weights.pt"))
