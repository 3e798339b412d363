"""analysis/toggled_models.py: which wraps a requires_grad toggle may reach. A wrap is spared
only where the toggle's objects and the wrap's are proved apart; every shape that hides an
object (a global handed out by a getter, a method keeping its argument, a callable held in
a variable, a star import) keeps the wrap flagged."""

from __future__ import annotations

import ast
import textwrap

from dp2ddp.transforms.analysis.toggled_models import untouched

HELPER = """
import torch.nn as nn
MODEL = nn.Linear(2, 2)


def get():
    return MODEL


def toggle(net, on):
    for p in net.parameters():
        p.requires_grad = on
"""


def _spared(*modules: tuple[str, str]) -> dict[str, set[int]]:
    """Module name -> the lines of its wraps no toggle reaches."""
    parsed = [(n, lambda s=s: ast.parse(textwrap.dedent(s)), False, s) for n, s in modules]
    found = untouched(parsed, [f"{n}.py" for n, _ in modules])
    toggles = sum(s.count(".requires_grad =") for _, s in modules)
    result: dict[str, set[int]] = {}
    for index, pairs in found:
        lines = {w for w, _ in pairs if w}
        result[modules[index][0]] = {w for w in lines if sum(x == w for x, _ in pairs) == toggles}
    return result


def test_only_the_wrap_holding_no_toggled_object_is_spared() -> None:
    main = (
        HELPER
        + """
def main(make):
    D = nn.Linear(3, 3)
    keeper = nn.Sequential()
    keeper.attach(D)
    other = nn.Linear(5, 5)
    toggle(get(), False)
    toggle(D, False)
    a = nn.DataParallel(get())
    b = nn.DataParallel(keeper)
    c = nn.DataParallel(other)
    d = nn.DataParallel(make())
    e = nn.DataParallel(nn.Sequential(D))
"""
    )
    lines = main.splitlines()
    spared = _spared(("train", main))["train"]
    assert [lines[n - 1].strip().split(" =")[0] for n in sorted(spared)] == ["c"]


def test_helper_of_another_module_follows_its_callers() -> None:
    utils = """
def toggle(net, on):
    for p in net.parameters():
        p.requires_grad = on
"""
    train = """
import torch.nn as nn
import utils


def step(netD):
    utils.toggle(netD, False)


def main():
    D = nn.Linear(3, 3)
    G = nn.Linear(2, 3)
    netD = nn.DataParallel(D)
    netG = nn.DataParallel(G)
    step(netD)
"""
    assert _spared(("train", train), ("utils", utils))["train"] == {14}


def test_star_import_leaves_the_callers_unknown() -> None:
    utils = """
def toggle(net, on):
    for p in net.parameters():
        p.requires_grad = on
"""
    train = """
import torch.nn as nn
from utils import *


def main():
    D = nn.Linear(3, 3)
    netG = nn.DataParallel(nn.Linear(2, 3))
    toggle(D, False)
"""
    assert _spared(("train", train), ("utils", utils))["train"] == set()


def test_a_module_global_toggled_elsewhere_is_the_same_object() -> None:
    models = """
import torch.nn as nn
netD = nn.Linear(3, 3)
"""
    train = """
import torch.nn as nn
import models
from models import netD


def main():
    for p in models.netD.parameters():
        p.requires_grad = False
    wrapped = nn.DataParallel(netD)
"""
    assert _spared(("train", train), ("models", models))["train"] == set()


def test_a_submodule_reached_through_a_package_binding_nothing() -> None:
    """`model.apply(utils.helpers.init)` where `utils/__init__.py` is empty: the package
    binds no name at all, so the walk of `utils.helpers` finds nothing there (the base
    raised KeyError: hzxie/Pix2Vox@0596d5e's `encoder.apply(utils.network_utils.init_weights)`)."""
    train = """
import torch.nn as nn
import utils.helpers


def main():
    net = nn.Linear(2, 2)
    frozen = nn.Linear(2, 2)
    for p in frozen.parameters():
        p.requires_grad = False
    net.apply(utils.helpers.init)
    wrapped = nn.DataParallel(net)
"""
    helpers = """
def init(layer):
    return layer
"""
    modules = [("train", train, False), ("utils", "", True), ("utils.helpers", helpers, False)]
    parsed = [(n, lambda s=s: ast.parse(textwrap.dedent(s)), p, s) for n, s, p in modules]
    found = untouched(parsed, ["train.py", "utils/__init__.py", "utils/helpers.py"])
    assert [index for index, _ in found] == [0, 1, 2]
