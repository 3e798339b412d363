"""`trainer.cuda()` on a trainer whose class inherits its own cuda() from a base of another
module, through a mixin: the program's classes are closed over together, so the call stays
`.cuda()` and the wrap inside it runs (before: `.to(DEVICE)`, an AttributeError)."""

import torch

from _dp2ddp import ddp_print, ddp_setup
from models import Wide

ddp_setup()


torch.manual_seed(0)
trainer = Wide()
trainer.cuda()
for epoch in range(2):
    trainer.epoch()
ddp_print("weights %.6f" % sum(p.sum().item() for p in trainer.model.parameters()))
