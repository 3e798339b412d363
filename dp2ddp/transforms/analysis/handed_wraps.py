"""The parameters of a module's functions that a DataParallel wrap is handed to (stop 52, v1-A).

The batch proof (batches/proof.py) follows the batch of each call of a wrapped model. It knew
a model call by the wrap's spelling (`model(x)` where `model = DataParallel(...)`), so a
training step written as a function of its own that gets the wrap as a parameter of another
name (`def train(net, q, opt): ... net(x)`), or in another module of the program
(sooftware/char-rnnlm@fc6573b: main.py hands the wrap to package/trainer.py's
`supervised_train(model=model, ...)`, whose `while True:` loop takes each batch from
`queue.get()` of a producer thread), was never proved: every rank trained on the whole batch,
and no warning said so. Here:

- `handed_parameters(flow, held, hinted)`: the parameters, by function, that a call of this
  module hands a wrap (a name the program's wraps are bound to, read through the def-use view
  at the call: `train(model, ...)` after `model = DataParallel(...)`), or that another module's
  call hands one (`hinted`: ProgramHints.wrap_parameters);
- `wrap_handoffs(tree, table)`: read with `ast` in a module that names DataParallel, each call
  of a function its imports resolve to another module (`package.trainer.supervised_train`)
  with an argument whose binding before the call in its scope is a wrap: `target|slot`, the
  slot a position or a keyword; `handed_to(name, every)` gives a module those of its own
  top-level functions. Beside it, the calls where any binding of the name before the call
  is a wrap (`if args.dp: model = DataParallel(model)` then `model = jitmodel` under another
  option): another module's parameter that may see the wrap (stop 54 s2: the wrapper's
  class name read there, analysis/wrapper_class.py), with the package's re-exports
  followed (`from lib import Trainer` for lib/trainer.py's class).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

import libcst as cst

from dp2ddp.flow import DefUse
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import dotted, resolved_name
from dp2ddp.transforms.analysis.constructions import WRAPS, unmoved


def handed_parameters(
    flow: DefUse,
    held: Callable[[cst.BaseExpression], bool],
    hinted: Iterable[str],
) -> dict[cst.FunctionDef, frozenset[str]]:
    """Function -> the names of its parameters some call hands a wrap: a call of this module
    whose argument for the parameter `held` says is a wrap, or another module's call
    (`hinted`, `function|slot` of this module's top-level functions)."""
    told: dict[str, set[str]] = {}
    for hint in hinted:
        name, _, slot = hint.partition("|")
        told.setdefault(name, set()).add(slot)
    found: dict[cst.FunctionDef, set[str]] = {}
    for function in flow.functions.values() if told else ():
        node = function.node
        if not isinstance(node, cst.FunctionDef) or function.owner is not None:
            continue
        slots = told.get(node.name.value, set())
        positional = [*node.params.posonly_params, *node.params.params]
        for index, param in enumerate(positional):
            if str(index) in slots or param.name.value in slots:
                found.setdefault(node, set()).add(param.name.value)
        for param in node.params.kwonly_params:
            if param.name.value in slots:
                found.setdefault(node, set()).add(param.name.value)
    for call in flow.calls:  # the module's own calls that hand a wrap, once each
        if not any(held(a.value) for a in call.args):
            continue
        for function in flow.callees(call):
            if not isinstance(function.node, cst.FunctionDef):
                continue
            for param in function.params:
                argument = argument_for(call, function, param)
                if argument is not None and held(argument):
                    found.setdefault(function.node, set()).add(param.name.value)
    return {node: frozenset(names) for node, names in found.items()}


def wrap_handoffs(tree: ast.Module, table: dict[str, str]) -> tuple[frozenset[str], frozenset[str]]:
    """`target|slot` of each call in `tree` of a dotted name its import table resolves
    (`table`) that passes, at `slot` (a position, or a keyword), a name whose latest binding
    before the call in the call's function (else at module level) is a DataParallel wrap
    (through `.cuda()`, `.to()`); and those where any binding before the call is one (the
    wrap may reach the callee). One listing of the module (ast_nodes.listed); the
    bindings read only for the names such calls hand."""
    nodes = ast_nodes.listed(tree)
    handing: list[tuple[ast.Call, str, list[tuple[str, str]]]] = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        given = [
            (slot, a.id)
            for slot, a in ast_nodes.call_slots(node)
            if slot != "**" and isinstance(a, ast.Name)
        ]
        if not given:
            continue
        target = resolved_name(node.func, table)
        if "." in target:
            handing.append((node, target, given))
    if not handing:
        return frozenset(), frozenset()
    names = {name for _, _, given in handing for _, name in given}
    functions = [n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def scope(node: ast.AST) -> ast.AST:
        """The innermost function whose lines hold `node`'s, else the module."""
        line = getattr(node, "lineno", 0)
        inside = [f for f in functions if f.lineno <= line <= (f.end_lineno or f.lineno)]
        return max(inside, key=lambda f: f.lineno) if inside else tree

    bound: dict[tuple[int, str], list[tuple[int, bool]]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for left in node.targets:
                if isinstance(left, ast.Name) and left.id in names:
                    key = (id(scope(node)), left.id)
                    bound.setdefault(key, []).append((node.lineno, _is_wrap(node.value)))
    found: set[str] = set()
    may: set[str] = set()
    for call, target, given in handing:
        home = id(scope(call))
        for slot, name in given:
            known = bound.get((home, name)) or bound.get((id(tree), name)) or []
            before = [wrap for line, wrap in sorted(known) if line < call.lineno]
            if before and before[-1]:
                found.add(f"{target}|{slot}")
            if any(before):
                may.add(f"{target}|{slot}")
    return frozenset(found), frozenset(may)


def handed_to(
    name: str, every: Iterable[frozenset[str]], aliases: dict[str, str] | None = None
) -> frozenset[str]:
    """`function|slot` of the top-level functions (and classes) of the module `name` that
    another module's call hands a wrap (`every`: each other module's `wrap_handoffs`);
    `aliases`: a package's re-exported name -> the name it gives (`lib.Trainer` ->
    `lib.trainer.Trainer`), followed twice."""
    if not name:
        return frozenset()
    found: set[str] = set()
    for handoffs in every:
        for handoff in handoffs:
            target, _, slot = handoff.partition("|")
            for _ in range(2):
                target = (aliases or {}).get(target, target)
            head, _, tail = target.rpartition(".")
            if head == name and tail:
                found.add(f"{tail}|{slot}")
    return frozenset(found)


def _is_wrap(value: ast.expr) -> bool:
    value = unmoved(value)
    if isinstance(value, ast.IfExp):
        return _is_wrap(value.body) or _is_wrap(value.orelse)
    parts = dotted(value.func) if isinstance(value, ast.Call) else None
    return parts is not None and bool(parts) and parts[-1] in WRAPS
