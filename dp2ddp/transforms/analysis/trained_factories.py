"""Which callables of other modules build the data a module's training loops take (program
mode).

A loader is often built by a function or a method of a data module and returned
(`def get_train_loader(self, batch_size): return DataLoader(...)` in data/dataloader.py),
and the entry trains on what it returns: `train_loader = corpus.get_train_loader(8)`,
`train(model, train_loader, opt)` whose `for batch in train_loader` runs `.backward()` and
`.step()` (class x1 of stop 54, xyz961014/longterm@c62d11e baseline/pytorch/lm.py:176-183).
The data module iterates that loader in no loop of its own: its pass cannot tell a training
loader from an evaluation set, and called it "evaluation metrics not reduced" (DP015).

For each training loop of a module (analysis/generator_batches.py `loop_role`: it, or a
function of this module it calls, runs `.backward()`/`.step()`), what it iterates is followed
back over the def-use view (flow/defuse.py: names, parameters of this module's functions as
its calls pass them: loader_consumers.py's `_passed`) to calls of an imported name: `f(...)`,
`mod.f(...)`, `obj.m(...)` where `obj = mod.Class(...)` or `obj = mod` (a module alias). Each
is listed by the qualified name its imports spell (`data.dataloader.Corpus.get_train_loader`).
A call that resolves to nothing imported is not listed.
"""

from __future__ import annotations

import libcst as cst
from libcst.helpers import get_full_name_for_node

from dp2ddp.flow import view
from dp2ddp.flow.defuse import Definition, DefUse
from dp2ddp.transforms.analysis.generator_batches import loop_role
from dp2ddp.transforms.analysis.loader_consumers import _passed, takers_of

#: The most values one loop's iterable is followed back through.
_BOUND = 100


def module_trained_factories(tree: cst.Module) -> tuple[str, ...]:
    """The qualified name of each imported callable whose call's value a training loop of
    this module iterates (see the module docstring)."""
    takers = [(t, e) for t, e in takers_of(tree) if isinstance(t, cst.For)]
    if not takers:
        return ()
    flow = view(tree)
    found: dict[str, None] = {}
    for taker, iterable in takers:
        calls = _calls_behind(flow, iterable)
        if not calls or loop_role(flow, taker) != "trains":
            continue
        for call in calls:
            name = imported_name(flow, call.func)
            if name is not None:
                found[name] = None
    return tuple(found)


def _calls_behind(flow: DefUse, expr: cst.BaseExpression) -> list[cst.Call]:
    """The calls whose value `expr` is, through names and this module's parameters."""
    seen: set[cst.CSTNode] = set()
    todo: list[cst.BaseExpression] = [expr]
    calls: list[cst.Call] = []
    while todo and len(seen) < _BOUND:
        value = todo.pop()
        if value in seen or not isinstance(value, cst.Name):
            continue
        seen.add(value)
        for definition in flow.definitions(value):
            if isinstance(definition.target, cst.Param):
                todo += _passed(flow, definition.target)
            elif definition.kind == "assign" and not definition.element:
                if isinstance(definition.value, cst.Call):
                    calls.append(definition.value)
                elif isinstance(definition.value, cst.Name):
                    todo.append(definition.value)
    return calls


def imported_name(flow: DefUse, expr: cst.BaseExpression, depth: int = 0) -> str | None:
    """The qualified name `expr` names through this module's imports: an imported name, an
    attribute of one, a method of an instance of an imported class (`corpus.get_loader` where
    `corpus = data.Corpus()`: `data.Corpus.get_loader`), of a module alias (`corpus = data`),
    or None."""
    if depth > 3:
        return None
    if isinstance(expr, cst.Attribute):
        owner = imported_name(flow, expr.value, depth + 1)
        return f"{owner}.{expr.attr.value}" if owner is not None else None
    if not isinstance(expr, cst.Name):
        return None
    found = flow.definitions(expr)
    if len(found) != 1:
        return None
    definition = found[0]
    if definition.kind == "import":
        return _import_name(definition, expr.value)
    if definition.kind == "assign" and not definition.element:
        value = definition.value
        if isinstance(value, cst.Call):  # `corpus = data.Corpus()`: an instance's methods
            return imported_name(flow, value.func, depth + 1)
        if isinstance(value, (cst.Name, cst.Attribute)):  # `corpus = dataloader`
            return imported_name(flow, value, depth + 1)
    return None


def _import_name(definition: Definition, bound: str) -> str | None:
    """What an import binds `bound` to, by its absolute dotted name (relative: None)."""
    statement, target = definition.statement, definition.target
    if not isinstance(target, cst.ImportAlias):
        return None
    name = get_full_name_for_node(target.name)
    if name is None:
        return None
    if isinstance(statement, cst.ImportFrom):
        if statement.relative or statement.module is None:
            return None
        module = get_full_name_for_node(statement.module)
        return f"{module}.{name}" if module is not None else None
    if target.asname is not None:
        return name
    return bound if name == bound or name.startswith(f"{bound}.") else None
