"""Which nn.Module classes may hold no parameter (analysis/bare_modules.py, stop 46 v1-A):
their DataParallel wraps become ddp_wrap_trainable, which decides at run time."""

from __future__ import annotations

import pytest

from dp2ddp.transforms.analysis.bare_modules import bare_classes, empty_classes

HEAD = "import torch\nimport torch.nn as nn\n\n"


@pytest.mark.parametrize(
    ("body", "bare"),
    [
        # numbers only: GaitSet's TripletLoss
        ("class L(nn.Module):\n    def __init__(self, m):\n        super().__init__()\n"
         "        self.m = float(m)\n    def forward(self, x):\n        return x.sum()\n", True),
        # torch's loss base
        ("class L(nn.modules.loss._Loss):\n    def __init__(self):\n        super().__init__()\n"
         "    def forward(self, x):\n        return x.sum()\n", True),
        # a layer
        ("class L(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
         "        self.fc = nn.Linear(2, 2)\n"
         "    def forward(self, x):\n        return self.fc(x)\n",
         False),
        # a parameter registered by name
        ("class L(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
         "        self.register_parameter('w', None)\n"
         "    def forward(self, x):\n        return x\n",
         False),
        # a module handed in and called (model_wrap_handed_in_teacher's Distiller)
        ("class L(nn.Module):\n    def __init__(self, net):\n        super().__init__()\n"
         "        self.net = net\n    def forward(self, x):\n        return self.net(x)\n", False),
        # another base: its parameters are not read here
        ("class L(Base):\n    def forward(self, x):\n        return x\n", False),
        # no forward(): no module to wrap
        ("class L(nn.Module):\n    pass\n", False),
    ],
)  # fmt: skip
def test_bare_classes(body: str, bare: bool) -> None:
    assert bare_classes("pkg.loss", HEAD + body) == (
        frozenset({"pkg.loss.L"}) if bare else frozenset()
    )


@pytest.mark.parametrize(
    ("body", "empty"),
    [
        # buffers only, filled through a local (FEDformer's PositionalEmbedding; stop 49 f3)
        ("class L(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
         "        pe = torch.zeros(8, d)\n        pe[:, 0::2] = torch.sin(pe[:, 0::2])\n"
         "        self.register_buffer('pe', pe)\n"
         "    def forward(self, x):\n        return self.pe[: x.size(0)]\n", True),
        # numbers of its own
        ("class L(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
         "        self.m = float(2)\n    def forward(self, x):\n        return x * self.m\n", True),
        # what it is given may be a module: not proved empty (bare all the same)
        ("class L(nn.Module):\n    def __init__(self, scale):\n        super().__init__()\n"
         "        self.scale = scale\n    def forward(self, x):\n        return x\n", False),
        # a parameter as a buffer's value is still registered
        ("class L(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
         "        self.register_buffer('w', nn.Parameter(torch.ones(1)))\n"
         "    def forward(self, x):\n        return x\n", False),
    ],
)  # fmt: skip
def test_empty_classes(body: str, empty: bool) -> None:
    """Classes that surely hold no parameter: a layer of one that forward() never uses
    leaves nothing without a gradient (DP041)."""
    assert (empty_classes("", HEAD + body) == {"L"}) is empty
    if empty:
        assert bare_classes("", HEAD + body) == {"L"}
