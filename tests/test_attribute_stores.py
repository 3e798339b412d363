"""Which attribute stores of a module may land on a configuration another module hands it
(program/attribute_stores.py; stop 47, ffjord's `self.u.data = u` on a registered parameter)."""

from __future__ import annotations

import ast

from dp2ddp.program.attribute_stores import stored_attributes


def stores(source: str) -> frozenset[str]:
    found = stored_attributes(ast.parse(source))
    return found.anywhere | {name for name, _, _ in found.on_self}


def test_store_on_a_registered_or_torch_built_attribute_is_left_out() -> None:
    source = (
        "import torch\nimport torch.nn as nn\n\n"
        "class Flow(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.register_parameter('u', nn.Parameter(torch.randn(3)))\n"
        "        self.w = nn.Parameter(torch.ones(3))\n"
        "        self.depth = 2\n"
        "    def fix(self):\n"
        "        self.u.data = self.u.data.abs()\n"
        "        self.w.data = self.w.data.abs()\n"
    )
    assert stores(source) == {"w", "depth"}


def test_store_on_a_handed_object_counts() -> None:
    source = (
        "import torch.nn as nn\n\n"
        "class Trainer(nn.Module):\n"
        "    def __init__(self, args):\n"
        "        super().__init__()\n"
        "        self.args = args\n"
        "        self.args.data = 'x'\n\n"
        "def setup(cfg):\n"
        "    cfg.mode = 'y'\n"
        "    setattr(cfg, 'seed', 1)\n"
    )
    assert {"data", "mode", "seed"} <= stores(source)


def test_class_with_a_program_base_counts_every_store() -> None:
    source = (
        "import torch\n\n"
        "class Child(Base):\n"
        "    def fix(self):\n"
        "        self.u = torch.zeros(3)\n"
        "        self.u.data = torch.ones(3)\n"
    )
    assert "data" in stores(source)


def test_stores_on_self_name_their_class_and_bases() -> None:
    source = (
        "class Loss(Base):\n"
        "    def __init__(self, args):\n"
        "        self.args = args\n"
        "        args.mode = 'x'\n"
    )
    found = stored_attributes(ast.parse(source))
    assert found.on_self == (("args", "Loss", frozenset({"Base"})),)
    assert found.anywhere == {"mode"}
