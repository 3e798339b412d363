"""A sample batch fetched once through an iterator object of the program: DP091.

A trainer builds an iterator object over a loader it is handed (`fetcher_val =
Fetcher(loaders["val"])`, a class whose `__next__` pulls `next(iter(self.loader))`) and
takes one batch from it before its training loop (`inputs_val = next(fetcher_val)`),
kept fixed to save debug outputs from (`out = net(inputs_val["x"])` under `no_grad()`).
DataParallel saw the whole batch; migrated, the loader behind the object may be sharded
like the training loaders (one helper builds both), so the saved outputs hold this
rank's share of the rows, silently (real-world: clovaai/stargan-v2@875b70a's
InputFetcher, class S7 of stop 32). `next(iter(loader))` of a loader of the module is
fetched whole by the shared-draws pass; here the loader is not followed through the
object (a parameter of another module's class), so the batch is said, not changed.

Said where, in one function: the `next(x)` is a statement of the function's own body (no
loop or branch around it: fetched once), `x` is bound there to a call of a class (not a
library's: a class of this module, or a name imported from no package the environment
knows as a library), the function trains (a backward or an optimizer step in its own body:
analysis/training.py), and every read of the batch is under `no_grad()`/`inference_mode()`
(it feeds no backward: a sample batch).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import libcst as cst

from dp2ddp.transforms._support.nodes import NO_GRAD, walk
from dp2ddp.transforms.analysis.training import function_trains

#: Import roots of libraries whose iterators a trainer may also draw once from.
_LIBRARIES = frozenset({"torch", "torchvision", "numpy", "tqdm", "itertools", "builtins"})


def fixed_fetches(
    module: cst.Module,
    qualified_names: Callable[[cst.CSTNode], set[str]],
) -> Iterator[tuple[cst.Call, str, str]]:
    """(the `next(...)` call, the object's name, its class as written) of each batch fetched
    once from an iterator object of the program and read only without gradients."""
    classes = {
        c.name.value for c in walk(module) if isinstance(c, cst.ClassDef) and _defines_next(c)
    }
    for function in walk(module):
        if not isinstance(function, cst.FunctionDef):
            continue
        if not isinstance(function.body, cst.IndentedBlock) or not function_trains(
            function, qualified_names
        ):
            continue
        built: dict[str, str] = {}
        for statement in function.body.body:
            assign = _single_assign(statement)
            if assign is None:
                continue
            target, value = assign
            if not isinstance(value, cst.Call):
                continue
            made = _program_class(value.func, classes, qualified_names)
            if made is not None:
                built[target] = made
                continue
            source = _next_of(value, qualified_names)
            if source is None or source not in built:
                continue
            if _sample_only(function, target, qualified_names):
                yield value, source, built[source]


def _defines_next(c: cst.ClassDef) -> bool:
    return any(isinstance(s, cst.FunctionDef) and s.name.value == "__next__" for s in c.body.body)


def _single_assign(statement: cst.BaseStatement) -> tuple[str, cst.BaseExpression] | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return small.targets[0].target.value, small.value
    return None


def _program_class(
    func: cst.BaseExpression,
    classes: set[str],
    qualified_names: Callable[[cst.CSTNode], set[str]],
) -> str | None:
    """The class `func` names when it is this module's iterator class or a capitalised
    name imported from a module of no known library (the program's own)."""
    if not isinstance(func, cst.Name):
        return None
    if func.value in classes:
        return func.value
    names = qualified_names(func)
    if not names or not func.value[:1].isupper():
        return None
    for name in names:
        root = name.split(".")[0]
        if name == func.value or root in _LIBRARIES or root in sys.stdlib_module_names:
            return None
    return func.value


def _next_of(call: cst.Call, qualified_names: Callable[[cst.CSTNode], set[str]]) -> str | None:
    if (
        isinstance(call.func, cst.Name)
        and call.func.value == "next"
        and qualified_names(call.func) <= {"builtins.next"}
        and len(call.args) == 1
        and isinstance(call.args[0].value, cst.Name)
    ):
        return call.args[0].value.value
    return None


def _sample_only(
    function: cst.FunctionDef, name: str, qualified_names: Callable[[cst.CSTNode], set[str]]
) -> bool:
    """Every read of `name` in `function` after its binding is inside a `with no_grad():`
    (and there is one)."""
    guarded: set[int] = set()
    for node in walk(function.body, skip_scopes=True):
        if isinstance(node, cst.With) and any(
            isinstance(item.item, cst.Call) and qualified_names(item.item.func) & NO_GRAD
            for item in node.items
        ):
            guarded.update(id(n) for n in walk(node.body))
    reads = [
        n
        for n in walk(function.body, skip_scopes=True)
        if isinstance(n, cst.Name) and n.value == name
    ]
    reads = reads[1:]  # the first is the binding (a statement of the body)
    return bool(reads) and all(id(n) in guarded for n in reads)
