"""Calls of functions that wrap (N3: facebookresearch/DrQA@6d7c1b7's `DocReader.parallelize()`,
called by the entry only under `if args.parallel:`, False by default).

The model-wrap pass hoists a wrap out of a GPU-count guard: every rank wraps, as every
DataParallel process would have used all its GPUs. A wrap inside a method the script calls
under such a guard was left there: at the default the ranks trained apart, each its own
model on its own shard, without a word. A call of a function whose own body calls
DataParallel is a wrap where it is called: hoisted as one, or DP012 under another
condition. The functions are this module's (libcst, `own_functions_that_wrap`) and, in
program mode, the other modules' (`functions_that_wrap`, with `ast`, once per program:
ProgramFacts.wrap_functions), matched by name.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.nodes import name_of, nodes_of, walk, wrap_target

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform


def functions_that_wrap(source: str) -> set[str]:
    """Names of the functions and methods of `source` whose own body calls DataParallel
    (`DataParallel(...)`, `nn.DataParallel(...)`, by name)."""
    if "DataParallel" not in source:
        return set()
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    found: set[str] = set()
    for function in ast_nodes.listed(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            isinstance(call, ast.Call)
            and (
                isinstance(call.func, ast.Name)
                and call.func.id == "DataParallel"
                or isinstance(call.func, ast.Attribute)
                and call.func.attr == "DataParallel"
            )
            for statement in function.body
            for call in ast_nodes.walk(statement)
        ):
            found.add(function.name)
    return found


def own_functions_that_wrap(module: cst.Module, is_wrap: Callable[[cst.CSTNode], bool]) -> set[str]:
    """Names of `module`'s functions and methods whose own body has a call `is_wrap`
    accepts (the pass's DataParallel, matched by qualified name)."""
    return {
        function.name.value
        for function in nodes_of(module, cst.FunctionDef)
        if any(is_wrap(n) for n in walk(function.body, skip_scopes=True))
    }


def calls_function(stmt: cst.CSTNode, names: frozenset[str]) -> bool:
    """`model.parallelize()` (or `parallelize(model)`) as a statement of its own, the callee
    one of `names`."""
    if not (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, cst.Call)
    ):
        return False
    call = stmt.body[0].value
    func = call.func
    if isinstance(func, cst.Attribute) and _is_mode_switch(call, func.attr.value):
        return False
    name = func.attr.value if isinstance(func, cst.Attribute) else name_of(func)
    return name is not None and name in names


def _is_mode_switch(call: cst.Call, method: str) -> bool:
    """`net.train(False)`, `net.train()`, `net.eval()`: nn.Module's mode switch, not the
    program's own `def train(config)` that wraps (thuml/CDAN@c904cd3: `base_network
    .train(False)` in an `if` of the loop was taken for a wrap, a false DP012). A call with
    another argument (`engine.train(config)`) is still matched by name."""
    if method == "eval":
        return not call.args
    if method != "train" or len(call.args) > 1:
        return False
    if not call.args:
        return True
    value = call.args[0].value
    keyword = call.args[0].keyword
    return (keyword is None or keyword.value == "mode") and (
        isinstance(value, cst.Name) and value.value in ("True", "False")
    )


def wrapper_results(
    module: cst.Module, transform: MigrationTransform, wrappers: frozenset[str]
) -> set[str]:
    """What the results of calls of functions that wrap (`wrappers`, by name) are assigned
    to, as spelled (`model = generate_model(args)`, through `.cuda()`/`.to()`): the wrapped
    model built elsewhere. A module that wraps only so still trains a wrap: a module built
    beside it and handed to the same optimizer trains outside it (analysis/
    outside_parameters.py), and its output is cut per rank (batches/__init__.py). Stop 46
    class v3-B/v3-C, okankop/Driver-Anomaly-Detection@6f7f251: `generate_model()` in
    model.py returns the DataParallel model, main.py's optimizer takes `list(model.
    parameters()) + list(model_head.parameters())` and its step cuts `vec[0:args.
    n_train_batch_size]`; migrated, each rank trained its own head and cut its 2 + 2 rows
    at 4, no word. A wrapping call whose result is not assigned (`model.parallelize()`)
    names nothing."""
    found: set[str] = set()
    if not wrappers:
        return found
    for call in nodes_of(module, cst.Call):
        if name_of(call.func) in wrappers:
            target = wrap_target(call, transform)
            if target is not None:
                found.add(target)
    return found
