"""What the loops of a module do with an iterable its callables are handed (program mode).

A loader is often built in one module and handed to a function or a class of another
(`Trainer(model, opt, train_loader, dev_loader)`), whose loops iterate it there: `for x, y in
self.train_data_loader` in `train()`, `for batch in data_loader` in `_valid_epoch(self,
data_loader)` under `no_grad()`. The loader's role (training data, sharded; an evaluation
set, whole) is decided by those loops, not by its `shuffle` flag (class v1-F of stop 39:
BangLiu/QANet-PyTorch@0ce11ca's dev loader, shuffled, was sharded and its figures chose the
best checkpoint from rank 0's half).

For each top-level function and top-level class (its `__init__`) of a module, each parameter
that a `for` loop of the module iterates (through `enumerate`/`tqdm`), or that an `iter(x)`
takes items from, followed backward over the def-use view (flow/defuse.py: names,
`self.x = param` bound in the class, a method's parameter that calls on `self` pass it to,
a function's parameter that calls of this module by its name pass it to):
the role of each such loop (of the function around an `iter(x)`; "evaluates" for one
taken under `no_grad()`) —

* "trains": it (or a function of this module it calls) runs `.backward()`/`.step()`;
* "evaluates": it does not, and runs in evaluation context (`no_grad()` around, `.eval()`);
* "unknown": neither proved.

A parameter no loop of the module is proved to iterate is not listed: the data pass says
where it hands a loader to such a parameter (DP084), never decides silently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import libcst as cst
from libcst.metadata import CodeRange

from dp2ddp.flow import view
from dp2ddp.flow.children import PerTree
from dp2ddp.flow.defuse import DefUse, Function
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.grad_mode import under_grad_off
from dp2ddp.transforms._support.libcst_private import positions
from dp2ddp.transforms._support.nodes import iterated, name_of, walk
from dp2ddp.transforms.analysis.generator_batches import loop_role

#: The most values one question follows back (a module's size bounds it anyway).
_BOUND = 200
#: The most parameters a function is followed through as a value (`f=g`, then `h(f=f)`).
_HOPS = 4
#: One parameter's consumers: (position among the positional parameters without `self`,
#: or None for a keyword-only one; its name; the role; the line of the loop; whether each
#: call makes one pass: a `for` of a top-level function with no loop around it there).
Consumer = tuple[int | None, str, str, int, bool]


def module_loader_consumers(import_name: str, tree: cst.Module) -> dict[str, tuple[Consumer, ...]]:
    """Every top-level function and class of the module (by the qualified name an importer
    resolves, `trainer.Trainer`), with the loops iterating its parameters (see the module
    docstring); a callable none of whose parameters a loop iterates has no entries: a
    loader handed to it is not followed (the data pass says so)."""
    found: dict[str, list[Consumer]] = {}
    for statement in tree.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            found[f"{import_name}.{statement.name.value}"] = []
    if not found:
        return {}
    takers = takers_of(tree)
    if not takers:  # a module of models and helpers: no def-use view built for it
        return {name: () for name in found}
    flow = view(tree)
    lines = _line_starts(tree)
    for taker, iterable in takers:
        role: str | None = None
        for slot_name, position, param in _parameters(flow, iterable):
            if role is None:
                role = (
                    "evaluates" if under_grad_off(iterable, flow.parent) else loop_role(flow, taker)
                )
            entry = (position, param, role, lines(taker), _once(flow, taker, slot_name))
            if entry not in found.setdefault(f"{import_name}.{slot_name}", []):
                found[f"{import_name}.{slot_name}"].append(entry)
    return {name: tuple(entries) for name, entries in found.items()}


def _taker_list(
    tree: cst.Module,
) -> tuple[tuple[cst.For | cst.FunctionDef, cst.BaseExpression], ...]:
    return tuple(_takers(tree))


#: A module's takers, once per tree (also read by analysis/trained_factories.py).
takers_of = PerTree(_taker_list)


def _takers(tree: cst.Module) -> Iterator[tuple[cst.For | cst.FunctionDef, cst.BaseExpression]]:
    """What takes an iterable's items, with the iterable: a `for` loop over it (through
    `enumerate`/`tqdm`...), or the function around an `iter(x)` (its `next()` calls take
    them: a training loop drawing `next(data_iter)`), or around `next(x)` / `x.__next__()`
    of an iterator handed in (a step function given `iter(loader)`: stop 72, class s72)."""
    for node in walk(tree):
        if isinstance(node, cst.Call) and (pulled := _next_of(node)) is not None:
            function = view(tree).function_around(node)
            if function is not None and isinstance(function.node, cst.FunctionDef):
                yield function.node, pulled
        if isinstance(node, cst.For):
            for expr in iterated(node.iter):
                if isinstance(expr, (cst.Name, cst.Attribute)):
                    yield node, expr  # `range(n)`, a call's result: nothing handed in as is
        elif (
            isinstance(node, cst.Call)
            and name_of(node.func) == "iter"
            and len(node.args) == 1
            and isinstance(node.args[0].value, (cst.Name, cst.Attribute))
        ):
            function = view(tree).function_around(node)
            if function is not None and isinstance(function.node, cst.FunctionDef):
                yield function.node, node.args[0].value


def _next_of(call: cst.Call) -> cst.Name | None:
    """`x` of `next(x)`, `x.__next__()` or `x.next()`."""
    func = call.func
    if isinstance(func, cst.Name) and func.value == "next" and call.args:
        first = call.args[0].value
        return first if isinstance(first, cst.Name) else None
    if (
        isinstance(func, cst.Attribute)
        and func.attr.value in ("__next__", "next")
        and not call.args
    ):
        return func.value if isinstance(func.value, cst.Name) else None
    return None


def _once(flow: DefUse, taker: cst.For | cst.FunctionDef, slot: str) -> bool:
    """`taker` is a `for` loop run once per call of `slot` (no loop around it there): of a
    top-level function, or of a method of a top-level class when `slot` is that method and
    the loop iterates its own parameter (`learner.train_one_epoch(epoch, loader)`, stop 47:
    DP011 said its passes were "not one per call"): a caller's epoch loop around that call
    numbers its passes (set_epoch's place, data/set_epoch.py). A loop over what the
    constructor kept (`Trainer(loader)`), another method's, or `iter()` takers are not."""
    if not isinstance(taker, cst.For):
        return False
    for above in flow.ancestors(taker):
        if isinstance(above, (cst.For, cst.While, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(above, cst.FunctionDef):
            if flow.parent(above) is flow.module:
                return True
            function = flow.function_around(taker)
            owner = function.owner if function is not None else None
            return (
                function is not None
                and function.node is above
                and owner is not None
                and flow.parent(owner) is flow.module
                and above.name.value != "__init__"
                and slot == f"{owner.name.value}.{above.name.value}"
            )
    return False


def _parameters(flow: DefUse, expr: cst.BaseExpression) -> Iterator[tuple[str, int | None, str]]:
    """(callable, position, name) of each parameter of a top-level function or class
    whose value `expr` is, as it was handed in: through names, `self.x = param` bound in
    the class, and parameters of its methods that calls on `self` pass it to (the
    def-use view; whatever calls of this module also pass there)."""
    seen: set[cst.CSTNode] = set()
    todo: list[cst.BaseExpression] = [expr]
    while todo and len(seen) < _BOUND:
        value = todo.pop()
        if value in seen:
            continue
        seen.add(value)
        if isinstance(value, cst.Name):
            for definition in flow.definitions(value):
                if isinstance(definition.target, cst.Param):
                    param = definition.target
                    slot = _slot(flow, param)
                    if slot is not None:
                        yield slot[0], slot[1], param.name.value
                    todo += _passed(flow, param)
                elif definition.kind == "assign" and not definition.element:
                    # a name bound to the iterable itself or to a progress wrapper of it
                    # (`iterable = enumerate(loader)`, `iterable = tqdm(iterable)`, stop 54
                    # v2-A: P0lyFish/pose-estimation@b68693e's do_training_epoch, whose
                    # loader was not followed: DP084, its figures rank 0's share unsaid)
                    for inner in iterated(definition.value) if definition.value else ():
                        if isinstance(inner, (cst.Name, cst.Attribute)):
                            todo.append(inner)
        elif isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name):
            function = flow.function_around(value)
            if function is None or function.owner is None:
                continue
            if function.self_name != value.value.value:
                continue
            for definition in flow.attribute_definitions(function.owner, value.attr.value):
                if isinstance(definition.value, (cst.Name, cst.Attribute)):
                    todo.append(definition.value)


def _passed(flow: DefUse, param: cst.Param) -> list[cst.BaseExpression]:
    """What this module's calls pass for `param`: of a method, calls on `self`
    (`self._valid_epoch(self.dev_data_loader)`); of a function, calls by its name
    (`evaluate(model, eval_loader)` in `train()`, which is handed `eval_loader`: class v3-C
    of stop 41, hengyuan-hu/bottom-up-attention-vqa@3925206, where DP084 said "no loop of
    its module iterates it" of train())."""
    function = flow.function_around(param)
    if function is None or function.owner is not None and function.self_name is None:
        return []
    passed: list[cst.BaseExpression] = []
    held = _held_calls(flow, function) if function.owner is None else []
    for call in [*flow.call_sites(function), *held]:
        func = call.func
        if function.owner is None:
            by_name = isinstance(func, cst.Name)
        else:
            by_name = (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == function.self_name
            )
        if by_name:
            argument = argument_for(call, function, param)
            if isinstance(argument, (cst.Name, cst.Attribute)):
                passed.append(argument)
    return passed


def _held_calls(flow: DefUse, function: Function) -> list[cst.Call]:
    """Calls of a parameter that holds `function`: `get_data_fn(config, net, loader)` where
    `get_data_fn=_clustering_get_data` is the parameter's default, or what this module's
    calls of its function pass for it, through other such parameters (xu-ji/IIC@b7602b7
    cluster_eval.py: the evaluation's loop in `_clustering_get_data` is reached only that
    way, and DP084 said "no loop of its module iterates it": stop 52 v3-B)."""
    return [
        call
        for call in flow.calls
        if isinstance(call.func, cst.Name)
        and any(
            isinstance(d.target, cst.Param) and _holds(flow, d.target, function, 0)
            for d in flow.definitions(call.func)
        )
    ]


def _holds(flow: DefUse, param: cst.Param, function: Function, depth: int) -> bool:
    """`param` may hold `function` itself: its default names it, or a call of the
    function `param` belongs to passes it (or a parameter that may hold it)."""
    if depth > _HOPS:
        return False
    values: list[cst.BaseExpression | None] = [param.default]
    around = flow.function_around(param)
    if around is not None:
        values += [argument_for(call, around, param) for call in flow.call_sites(around)]
    for value in values:
        if not isinstance(value, cst.Name):
            continue
        for definition in flow.definitions(value):
            if definition.kind == "def" and definition.statement is function.node:
                return True
            target = definition.target
            if isinstance(target, cst.Param) and target is not param:
                if _holds(flow, target, function, depth + 1):
                    return True
    return False


def _slot(flow: DefUse, param: cst.Param) -> tuple[str, int | None] | None:
    """(the callable an importer calls, the parameter's position as it counts them) for a
    parameter of a top-level function, of a top-level class's `__init__` (the class), or of
    another method of one ("Class.method", called on an instance another module built:
    `learner.train_one_epoch(loader, opt)`, stop 46 class v3-A); None else."""
    function = flow.function_around(param)
    if function is None or not isinstance(function.node, cst.FunctionDef):
        return None
    params = function.params
    if function.owner is not None:
        if flow.parent(function.owner) is not flow.module:
            return None
        name = function.owner.name.value
        if function.node.name.value != "__init__":
            name = f"{name}.{function.node.name.value}"
        params = params[1:] if function.self_name is not None else params
    elif flow.parent(function.node) is flow.module:
        name = function.node.name.value
    else:
        return None
    positional = [*function.node.params.posonly_params, *function.node.params.params]
    position = next(
        (i for i, p in enumerate(p for p in positional if p in params) if p is param), None
    )
    return name, position


def _line_starts(tree: cst.Module) -> Callable[[cst.CSTNode], int]:
    """The 1-based line a loop starts on (positions resolved once, where a loop needs one,
    by the pipeline's own position pass: libcst_private.positions)."""
    resolved: Mapping[cst.CSTNode, CodeRange] | None = None

    def line(loop: cst.CSTNode) -> int:
        nonlocal resolved
        if resolved is None:
            resolved = positions(tree)
        found = resolved.get(loop)
        return found.start.line if found is not None else 0

    return line
