"""What a construction of another module's class is handed, through a name bound more than
once in straight-line code (analysis/constructions.py, stop 52 s3: Cold-Diffusion-Models
@f8b1379 celebA_128.py binds `diffusion` to the model, then to its DataParallel wrap, then
hands it to `Trainer(diffusion, ...)`)."""

from __future__ import annotations

import ast

from dp2ddp.transforms.analysis.constructions import constructed, constructions

ENTRY = """
from lib import Blur, Trainer
from torch import nn
d = Blur()
d = nn.DataParallel(d)
t = Trainer(d)
e = nn.DataParallel(Blur())
if flag:
    e = Blur()
u = Trainer(e)
f = Blur()
for i in range(2):
    f = nn.DataParallel(f)
v = Trainer(f)
g = nn.DataParallel(Blur())
g = Blur()
w = Trainer(g)
"""


def test_the_binding_reaching_a_construction_in_straight_line_code() -> None:
    tree = ast.parse(ENTRY)
    table = {"Blur": "lib.Blur", "Trainer": "lib.Trainer", "nn": "torch.nn"}
    found = constructions(tree, table, {"lib.Trainer"}, {})
    assert found == {
        "lib.Trainer|6|0=wrap",  # the wrap, bound second
        "lib.Trainer|10|0=other",  # a binding under an `if`: not followed
        "lib.Trainer|14|0=other",  # a binding in a loop: not followed
        "lib.Trainer|17|0=ext:lib.Blur",  # the model, bound after the wrap
    }
    hints = constructed("lib", [("train", frozenset(found))], {"lib"})
    assert hints == {"Trainer|0=wrap", "Trainer|0=other"}
