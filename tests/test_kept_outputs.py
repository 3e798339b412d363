"""analysis/kept_outputs.py: which outputs of a wrapped model's calls the program reads,
followed over the module's def-use view (v1-F, stop 41)."""

from __future__ import annotations

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms.analysis.kept_outputs import Kept, kept_outputs, model_calls


def _kept(source: str, target: str = "model") -> list[Kept]:
    module = cst.parse_module(source)
    flow = view(module)
    library = {"sum", "torch", "criterion"}

    def program(call: cst.Call) -> bool | None:
        func = call.func
        while isinstance(func, cst.Attribute):
            func = func.value
        return None if not isinstance(func, cst.Name) or func.value not in library else False

    return [kept_outputs(flow, call, program) for call in model_calls(flow, target)]


def test_unpacking_and_constant_subscripts_keep_their_elements_outside_no_grad() -> None:
    """`out, stop = model(x)` with `stop` never read keeps element 0 of 2; the same under
    `torch.no_grad()` or in a function decorated with it is no step; `self.net(x)[0]` keeps
    0; names all read reach everything."""
    source = """
import torch
for x, y in loader:
    out, stop = model(x)
    loss = (out - y).abs().mean()
with torch.no_grad():
    out, unread = model(x)
@torch.no_grad()
def evaluate(x):
    a, b = model.forward(x)
    return a
class Trainer:
    def step(self, x):
        kept, head = self.net.forward(x)
        return kept + head
    def first(self, x):
        return self.net(x)[0]
"""
    [found] = _kept(source)
    assert (found.whole, found.kept, found.arity, found.unknown) == (False, frozenset({0}), 2, "")
    whole, first = _kept(source, "self.net")
    assert whole.whole
    assert (first.kept, first.arity, first.unknown) == (frozenset({0}), 0, "")


def test_a_name_is_followed_through_a_helper_and_its_reads_joined() -> None:
    """`out = model(x)` handed to the module's own function reading `out[0]` and `out[2]`
    keeps 0 and 2; a library call of the whole value (`sum(out)`) reaches every output."""
    source = """
def loss_of(out, y):
    return (out[0] - y).mean() + out[2].mean()
for x, y in loader:
    out = model(x)
    loss = loss_of(out, y)
"""
    [found] = _kept(source)
    assert (found.whole, found.kept, found.unknown) == (False, frozenset({0, 2}), "")
    [found] = _kept(source.replace("= loss_of(out, y)", "= loss_of(out, y) + sum(out)"))
    assert found.whole


def test_slices_comprehensions_and_returns() -> None:
    """v1-F's `[net(img)[:num_scales] for img in ...]`: a slice bounded at run time keeps
    an unknown part; a constant slice keeps its range; a comprehension of whole outputs
    read by index takes one level off (`outs[0][1]`); a value returned is followed to the
    function's calls, not followed where it has none in the module."""
    [found] = _kept("depths = [model(img)[:num_scales] for img in images]\n")
    assert found.unknown == "a slice bounded at run time"
    [found] = _kept("loss = model(x)[:2]\n")
    assert found.kept == frozenset({0, 1})
    [found] = _kept("outs = [model(i) for i in images]\nloss = outs[0][1]\n")
    assert (found.kept, found.unknown) == (frozenset({1}), "")
    [found] = _kept("def run(x):\n    return model(x)\n")
    assert found.unknown == "returned"
    [found] = _kept("def run(x):\n    return model(x)\nloss = sum(run(x))\n")
    assert found.whole


def test_what_is_not_followed_is_said() -> None:
    """Handed to a callable whose code is not followed, stored on an object, or collected
    into a list: not followed (never taken as read)."""
    [found] = _kept("out = model(x)\nloss = other.loss(out)\n")
    assert found.unknown == "handed on"
    [found] = _kept("self.out = model(x)\n")
    assert found.unknown == "stored"
    [found] = _kept("outs = []\nouts.append(model(x))\n")
    assert found.unknown == "collected"
    [found] = _kept("out = model(x)\nloss = criterion(out, y)\n")
    assert found.whole


def test_a_loop_over_the_outputs_carries_each_one() -> None:
    """SC-SfMLearner's `[1 / disp for disp in disp_net(img)]`: each output, computed on, in
    a comprehension with no filter is the list of the outputs again: followed, here to a
    callable not followed; read whole by a library call, every output is reached."""
    [found] = _kept("depths = [1 / d for d in model(x)]\nloss = other.loss(depths)\n")
    assert found.unknown == "handed on"
    [found] = _kept("depths = [1 / d for d in model(x)]\nloss = depths[0].mean()\n")
    assert (found.kept, found.unknown) == (frozenset({0}), "")
    [found] = _kept("loss = sum(1 / d for d in model(x))\n")
    assert found.whole
