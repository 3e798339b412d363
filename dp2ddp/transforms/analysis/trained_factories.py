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

from dataclasses import replace

import libcst as cst
from libcst.helpers import get_full_name_for_node

from dp2ddp.flow import view
from dp2ddp.flow.defuse import Definition, DefUse
from dp2ddp.result import LoaderExport
from dp2ddp.transforms._support.nodes import iterated
from dp2ddp.transforms.analysis.generator_batches import guarded_steps, loop_role
from dp2ddp.transforms.analysis.loader_consumers import _passed, takers_of
from dp2ddp.transforms.analysis.module_index import argument
from dp2ddp.transforms.analysis.step_guards import steps_on

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
        role = loop_role(flow, taker)
        if role == "unknown" and guarded_steps(flow, taker):  # `if train: loss.backward()`
            calls = _calls_behind(flow, iterable, _switched_off(flow, taker))
        elif role == "trains":
            calls = _calls_behind(flow, iterable)
        else:
            continue
        for call in calls:
            name = imported_name(flow, call.func)
            if name is not None:
                found[name] = None
    return tuple(found)


def _switched_off(flow: DefUse, loop: cst.For) -> frozenset[cst.BaseExpression]:
    """The arguments of the calls of `loop`'s function that switch its steps off: one loop
    for both passes, `run(net, loader, opt, train=False)` (analysis/step_guards.py); the
    loaders those calls hand in are evaluated, not trained on (round 22: a Dataset's
    `get_loader()` in another module, its evaluation loader sharded with nothing said)."""
    function = flow.function_around(loop)
    if function is None:
        return frozenset()
    return frozenset(
        argument.value
        for call in flow.call_sites(function)
        if steps_on(flow, loop, (call,)) is False
        for argument in call.args
    )


def _calls_behind(
    flow: DefUse, expr: cst.BaseExpression, off: frozenset[cst.BaseExpression] = frozenset()
) -> list[cst.Call]:
    """The calls whose value `expr` is, through names and this module's parameters (not
    through the arguments `off`: of calls that switch the loop's steps off)."""
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
                todo += [a for a in _passed(flow, definition.target) if a not in off]
            elif definition.kind == "assign" and definition.value is not None:
                for inner in iterated(definition.value):  # `pbar = tqdm(loader)` (round 22)
                    if isinstance(inner, cst.Call):  # `loader, _ = lib.get(8)` too
                        calls.append(inner)
                    elif isinstance(inner, cst.Name):
                        todo.append(inner)
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


def branch_pick(
    flow: DefUse, function: cst.FunctionDef, loader: cst.Call
) -> tuple[str, int | None, tuple[str, ...]] | None:
    """Which argument makes `function` return `loader` where it returns it or another
    loader by a branch (class r3-B of stop 55, VITA-Group/Nasty-Teacher@2f9c444's
    `fetch_dataloader(types, params)`: `if types == 'train': dl = trainloader else: dl =
    devloader; return dl`): (the parameter, its position, the constant strings) where every
    way `loader` reaches a return is under `if <parameter> == '<constant>'` (or `in` a
    tuple of them) in the function's own chain of `if`/`elif`; else None (not told)."""
    found = flow.function_around(loader)
    if found is None or found.node is not function:
        return None
    sites: list[cst.CSTNode] = []
    picks: set[tuple[str, tuple[str, ...]]] = set()
    for value in found.returns:
        items = looked_up(flow, value)
        if items is not None and isinstance(value, cst.Subscript):  # `return loaders[split]`
            keys = tuple(k for k, v in items if _value_reaches(flow, v, loader, 0))
            key = value.slice[0].slice
            if not isinstance(key, cst.Index) or not isinstance(key.value, cst.Name):
                return None
            picks.update([(key.value.value, keys)] if keys else [])
            continue
        several = isinstance(value, cst.Name) and len(flow.definitions(value)) > 1
        if several and isinstance(value, cst.Name):
            sites += [d.statement for d in flow.definitions(value) if _reaches(flow, d, loader)]
        elif _value_reaches(flow, value, loader, 0):
            sites.append(flow.statement_of(value))
    for site in sites:
        pick = _branch_test(flow, function, site)
        if pick is None:
            return None
        picks.add(pick)
    if len(picks) != 1:
        return None
    name, values = picks.pop()
    known, index = _parameter_position(function, name)
    return (name, index, values) if known else None


def picks_sharded(call: cst.Call | None, export: LoaderExport | None) -> bool | None:
    """Whether `call` of a factory returns the loader `export` names: True (also where the
    export is no branched one), False (a constant argument picks another, whole loader),
    None (it may: the figures of loops over it are this rank's share, DP030)."""
    if export is None or not export.branched or call is None:
        return True
    value = argument(call, export.picks, export.picks_index) if export.picks else None
    if isinstance(value, cst.SimpleString):
        return value.evaluated_value in export.picked
    return None


def _reaches(flow: DefUse, definition: Definition, loader: cst.Call, depth: int = 0) -> bool:
    """The definition binds `loader` itself, or a name bound only to it."""
    return (
        definition.kind == "assign"
        and not definition.element
        and (definition.value is not None and _value_reaches(flow, definition.value, loader, depth))
    )


def _value_reaches(flow: DefUse, value: cst.BaseExpression, loader: cst.Call, depth: int) -> bool:
    """`value` is `loader`, or a name every binding of which is (through names)."""
    if value is loader:
        return True
    if not isinstance(value, cst.Name) or depth > 3:
        return False
    found = flow.definitions(value)
    return bool(found) and all(_reaches(flow, d, loader, depth + 1) for d in found)


def ordered_default(function: cst.FunctionDef, name: str) -> bool:
    """`function`'s parameter `name` defaults to the literal False."""
    params = function.params
    return any(
        p.name.value == name and isinstance(p.default, cst.Name) and p.default.value == "False"
        for p in (*params.posonly_params, *params.params, *params.kwonly_params)
    )


def _parameter_position(function: cst.FunctionDef, name: str) -> tuple[bool, int | None]:
    """Whether `function` has a parameter `name`, and its position (None: keyword-only)."""
    params = function.params
    for position, param in enumerate([*params.posonly_params, *params.params]):
        if param.name.value == name:
            return True, position
    return any(p.name.value == name for p in params.kwonly_params), None


def _branch_test(
    flow: DefUse, function: cst.FunctionDef, site: cst.CSTNode
) -> tuple[str, tuple[str, ...]] | None:
    """(parameter, constants) of the innermost `if` whose body holds `site`, where that
    test is `name == 'c'` (`'c' == name`, `name in ('a', 'b')`) and the `if` stands in the
    function's body or in the `elif` chain of one there; else None."""
    child: cst.CSTNode = site
    branch: cst.If | None = None
    for node in flow.ancestors(site):
        if node is function:
            break
        if isinstance(node, cst.If):
            if branch is None:
                if child is not node.body:
                    return None
                branch = node
            elif child is not node.orelse:
                return None  # in another branch's body: more than the test decides
        elif not isinstance(node, (cst.IndentedBlock, cst.Else, cst.SimpleStatementLine)):
            return None  # a loop, a `with`, a `try` around the branch
        child = node
    if branch is None:
        return None
    test = branch.test
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    left, right = test.left, target.comparator
    if isinstance(target.operator, cst.Equal) and isinstance(left, cst.SimpleString):
        left, right = right, left
    if not isinstance(left, cst.Name):
        return None
    if isinstance(target.operator, cst.Equal) and isinstance(right, cst.SimpleString):
        return (left.value, (str(right.evaluated_value),))
    if isinstance(target.operator, cst.In) and isinstance(right, (cst.Tuple, cst.List, cst.Set)):
        items = [e.value for e in right.elements if isinstance(e.value, cst.SimpleString)]
        if items and len(items) == len(right.elements):
            return (left.value, tuple(str(i.evaluated_value) for i in items))
    return None


def picking(
    export: LoaderExport, pick: tuple[str, int | None, tuple[str, ...]] | None
) -> LoaderExport:
    """`export` made a branched one, with what branch_pick found (none: not told)."""
    if pick is None:
        return replace(export, branched=True)
    return replace(export, branched=True, picks=pick[0], picks_index=pick[1], picked=pick[2])


def shuffle_parameter(
    loader: cst.Call, index: int | None, function: cst.FunctionDef
) -> tuple[str, int | None]:
    """The factory's parameter its DataLoader `loader` takes `shuffle=` from (its argument
    at `index`), and the parameter's position."""
    if index is None:
        return "", None
    value = loader.args[index].value
    if not isinstance(value, cst.Name):
        return "", None
    known, position = _parameter_position(function, value.value)
    return (value.value, position) if known else ("", None)


def looked_up(
    flow: DefUse, value: cst.BaseExpression
) -> list[tuple[str, cst.BaseExpression]] | None:
    """(key, value) of each item of the dict literal `value` reads one item of by a key
    (`loaders[split]`, `loaders` bound once to `{"train": train_loader, "dev": ...}`: a
    factory's lookup by split name, class r3-B of stop 55); None where it is none."""
    if not isinstance(value, cst.Subscript) or len(value.slice) != 1:
        return None
    table: cst.BaseExpression | None = value.value
    if isinstance(table, cst.Name):
        found = flow.definitions(table)
        if len(found) != 1 or found[0].kind != "assign" or found[0].element:
            return None
        table = found[0].value
    if not isinstance(table, cst.Dict):
        return None
    items: list[tuple[str, cst.BaseExpression]] = []
    for element in table.elements:
        if not isinstance(element, cst.DictElement) or not isinstance(
            element.key, cst.SimpleString
        ):
            return None
        items.append((str(element.key.evaluated_value), element.value))
    return items
