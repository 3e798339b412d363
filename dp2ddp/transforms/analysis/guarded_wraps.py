"""Which branches of a wrap's guard wrap, and what a hoisted wrap leaves before it.

Two facts model_wrap.py asks about an `if` around a DataParallel wrap:

* Whether a branch wraps on every path through it: at its top level, or by an inner
  if/elif/else chain with an else every branch of which does (Tencent/MedicalNet@20f76aa's
  `if not opt.no_cuda: if len(opt.gpu_id) > 1: wrap … else: wrap …`). The inner chain is
  no condition on the wrap (every path through it wraps), but the outer `if` is: a program
  that wraps under `if not args.cpu:` and trains unwrapped in its `else` needs DP012 as
  much as one that wraps at the outer `if`'s own level (stop 39, v4-C: with `--cpu` each
  rank trained its shard unsynchronised, `--check` passed).
* What of the guard's else branch takes the wrapped model's names (DP086). A device guard's wrap is
  hoisted after the `if/else` so that every process wraps, on CPU too; the else branch (the
  original's path without DataParallel) still runs first, so what it takes from the model
  (`net_dict = model.state_dict()`: keys without `module.`) describes the unwrapped model,
  and the code after the `if` now meets a wrapped one (`model.load_state_dict(net_dict)`:
  "Missing key(s) … module.conv1.weight" on every rank, MedicalNet with `--no_cuda`).
  Running the else branch after the wrap instead would load what the original's path never
  loaded (the pretrained `module.` keys), so it is said, not rewritten.
* Whether a statement wraps in a loop (`for pair in models: pair[0] = DataParallel(pair[0])`,
  a `while` or a `with` around it): a wrap all the same. A GPU-count guard around such a loop
  only decided whether to wrap, as around a wrap at its top level; kept, it wrapped no model
  under torchrun on CPU or with one GPU per process, and the ranks trained apart with no
  warning (stop 53 v4-A, spacegoing/DARNN_Multi_GPU@7e60823, MultiTaskMain.py:171).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
import libcst.matchers as m

from dp2ddp.transforms._support.names import DDP_WRAPS
from dp2ddp.transforms._support.nodes import code_of, walk


def wraps_on_every_path(
    block: cst.BaseSuite, wraps_directly: Callable[[cst.BaseSuite], bool], depth: int = 0
) -> bool:
    """`block` wraps at its top level, or holds an if/elif/else chain ending in an else
    every branch of which wraps on every path (the module docstring)."""
    if wraps_directly(block):
        return True
    if depth > 8 or not isinstance(block, cst.IndentedBlock):
        return False
    for stmt in block.body:
        node: cst.If | cst.Else | None = stmt if isinstance(stmt, cst.If) else None
        if node is None:
            continue
        every = True
        while isinstance(node, cst.If):
            every = every and wraps_on_every_path(node.body, wraps_directly, depth + 1)
            node = node.orelse
        if every and isinstance(node, cst.Else):
            return wraps_on_every_path(node.body, wraps_directly, depth + 1)
    return False


def looped_wrap(stmt: cst.BaseStatement, wraps_directly: Callable[[cst.BaseSuite], bool]) -> bool:
    """`stmt` is a for/while/with whose body wraps at its top level or in such a statement
    in turn (`wraps_directly` recurses through this): the loop wraps (the module docstring)."""
    return isinstance(stmt, (cst.For, cst.While, cst.With)) and wraps_directly(stmt.body)


def wrap_assignments(stmt: cst.BaseStatement) -> set[str]:
    """`m = DDP(...)` or `m = ddp_wrap_trainable(...)` (one simple assignment whose value
    wraps) -> {"m"}; else empty."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return set()
    assign = stmt.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return set()
    if not m.findall(assign.value, m.Call(func=m.OneOf(*map(m.Name, DDP_WRAPS)))):
        return set()
    return {code_of(assign.targets[0].target)}


#: Reads whose result carries the module's names, which the wrap prefixes with `module.`.
_NAMED = frozenset(
    {"state_dict", "named_parameters", "named_buffers", "named_modules", "named_children"}
)


def read_before_wrap(kept: list[cst.BaseStatement], targets: set[str]) -> int | None:
    """The index in `kept` (what stays of the else branch) of the first statement that takes
    the names of a model the hoisted wrap binds (`model.state_dict()`, `named_parameters()`):
    it now runs before the wrap, and what it took has no `module.` prefix. A move or a cast
    (`critic = critic.cpu()`) reads the model too, but nothing in it depends on the wrap."""
    for index, stmt in enumerate(kept):
        for node in walk(stmt):
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value in _NAMED
                and code_of(node.func.value) in targets
            ):
                return index
    return None


def called_bare(kept: list[cst.BaseStatement], hoisted: list[cst.BaseStatement]) -> str | None:
    """The first call, in what stays of the else branch, of a module the hoisted wrap wraps
    under another name (`model = DDP(self.net.to(DEVICE))`, the else calling `self.net(x)`;
    JusperLee/Dual-Path-RNN-Pytorch@87b6301's Trainer, stop 42 v3-G): on that path the
    original trained the bare module in one process; under torchrun each rank would train its
    shard through it with no gradient averaged (DP100)."""
    inner: set[str] = set()
    for stmt in hoisted:
        for call in m.findall(stmt, m.Call(func=m.OneOf(*map(m.Name, DDP_WRAPS)))):
            assert isinstance(call, cst.Call)
            if not call.args:
                continue
            arg = call.args[0].value
            while (
                isinstance(arg, cst.Call)
                and isinstance(arg.func, cst.Attribute)
                and arg.func.attr.value in ("to", "cuda")
            ):
                arg = arg.func.value  # `self.net.to(DEVICE)`: the module itself
            if code_of(arg) not in wrap_assignments(stmt):
                inner.add(code_of(arg))
    for stmt in kept:
        for node in walk(stmt):
            if isinstance(node, cst.Call) and code_of(node.func) in inner:
                return code_of(node)
    return None


def _constant_name(node: cst.BaseExpression | None) -> str:
    """`"dim"` -> "dim"; anything but a constant identifier string -> "?"."""
    text = node.evaluated_value if isinstance(node, cst.SimpleString) else None
    return text if isinstance(text, str) and text.isidentifier() else "?"


def _store_on(stmt: cst.BaseStatement, targets: set[str]) -> tuple[str, str, str] | None:
    """`net.representation_dim = repr_dim` with `net` a name the wrap binds -> (wrapped
    name, attribute, the value's code); a single assignment of one attribute, else None.
    A store made by a call or through the instance's dict is a store all the same:
    `setattr(net, "dim", v)` and `net.__dict__["dim"] = v` give (net, dim, v); with an
    attribute name not a constant string the attribute is `?`, which no read proves."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        if (
            not m.matches(call.func, m.Name("setattr"))
            or len(call.args) != 3
            or any(a.star or a.keyword for a in call.args)
            or code_of(call.args[0].value) not in targets
        ):
            return None
        name = call.args[1].value
        return code_of(call.args[0].value), _constant_name(name), code_of(call.args[2].value)
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    if (
        isinstance(target, cst.Subscript)
        and m.matches(target.value, m.Attribute(attr=m.Name("__dict__")))
        and isinstance(target.value, cst.Attribute)
        and code_of(target.value.value) in targets
    ):
        key = target.slice[0].slice if len(target.slice) == 1 else None
        value = key.value if isinstance(key, cst.Index) else None
        return code_of(target.value.value), _constant_name(value), code_of(small.value)
    if not isinstance(target, cst.Attribute) or code_of(target.value) not in targets:
        return None
    return code_of(target.value), target.attr.value, code_of(small.value)


def _read_of(stmt: cst.BaseStatement) -> tuple[str, str] | None:
    """`repr_dim = net.representation_dim` -> ("repr_dim", "net.representation_dim")."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    assign = stmt.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    if not isinstance(assign.targets[0].target, cst.Name):
        return None
    if not isinstance(assign.value, cst.Attribute):
        return None
    return assign.targets[0].target.value, code_of(assign.value)


def stores_after_wrap(
    before: list[cst.BaseStatement], after: list[cst.BaseStatement], targets: set[str]
) -> tuple[int, int, cst.BaseStatement | None]:
    """What of a device guard moves out with its hoisted wrap (ae-foster/pytorch-simclr@
    cd4744c: `if device == 'cuda': repr_dim = net.representation_dim; net = DP(net);
    net.representation_dim = repr_dim`). A store on the wrapper re-exposes an attribute of
    the module; left under the guard, the wrapper lacks it wherever the guard is false, and
    the program's later `net.representation_dim` raises AttributeError on the DDP object.

    -> (how many statements at the end of `before` and at the start of `after` move out
    after the wrap, in order; the first store on the wrapper not proved, else None).
    Proved: each store is `T.X = T.module.X`, or `T.X = n` with `n = T.X` (the same
    attribute, read before the wrap) in the moved tail of `before`: the store gives the
    wrapper the module's own value, which is what the original's unwrapped model answered
    where the guard was false. The moved statements are a head of `after` and a tail of
    `before` made only of such statements, so their order among the guard's statements is
    the original's. Anything else storing on the wrapper is not moved (DP114)."""
    head = 0
    needed: dict[str, str] = {}  # read name -> `T.X` it must hold
    for stmt in after:
        store = _store_on(stmt, targets)
        if store is None:
            break
        wrapped, attr, value = store
        if value == f"{wrapped}.module.{attr}":
            head += 1
            continue
        if needed.get(value, f"{wrapped}.{attr}") != f"{wrapped}.{attr}":
            return 0, 0, stmt
        needed[value] = f"{wrapped}.{attr}"
        head += 1
    for stmt in after[head:]:
        if _store_on(stmt, targets) is not None:
            return 0, 0, stmt
    tail, found = 0, set()
    for stmt in reversed(before):
        read = _read_of(stmt)
        if read is None or needed.get(read[0]) != read[1] or read[0] in found:
            break
        found.add(read[0])
        tail += 1
    if found != set(needed):
        lacking = set(needed) - found
        return 0, 0, next(s for s in after if (st := _store_on(s, targets)) and st[2] in lacking)
    return tail, head, None
