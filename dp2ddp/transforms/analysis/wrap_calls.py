"""Calls of functions that wrap (N3: facebookresearch/DrQA@6d7c1b7's `DocReader.parallelize()`,
called by the entry only under `if args.parallel:`, False by default).

The model-wrap pass hoists a wrap out of a GPU-count guard: every rank wraps, as every
DataParallel process would have used all its GPUs. A wrap inside a method the script calls
under such a guard was left there: at the default the ranks trained apart, each its own
model on its own shard, without a word. A call of a function whose own body calls
DataParallel is a wrap where it is called: hoisted as one, or DP012 under another
condition. The functions are this module's (libcst, `own_functions_that_wrap`) and, in
program mode, the other modules' (`program_wrap_facts`, with `ast`, once per program:
ProgramFacts.wrap_functions), matched by name.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.flow.defuse import Definition, DefUse
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.nodes import (
    MODULE_SELF_CALLS,
    assigned_target,
    code_of,
    name_of,
    nodes_of,
    unmoved,
    walk,
    wrap_target,
)

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

#: The most values one question of `_holds_wrap` follows back.
_BOUND = 200


def program_wrap_facts(source: str) -> tuple[set[str], set[str], set[str]]:
    """From one parse of `source` (the program's facts read every module once:
    program/told.py): the names of its functions and methods whose own body calls
    DataParallel (`DataParallel(...)`, `nn.DataParallel(...)`, by name); of those of them
    (or of any function of `source`) that may return such a wrap: a return of the call, of
    a name or attribute the function binds to one, or of a call of another such function of
    `source`, through `.cuda()`/`.to()` and either side of an `if`-expression; and
    contained_wrappers' names."""
    tree = _wrapping_tree(source)
    if tree is None:
        return set(), set(), set()
    found, returning = _functions_that_wrap(tree)
    return found, returning, _contained_in(tree)


def _wrapping_tree(source: str) -> ast.Module | None:
    """`source`'s ast where it names DataParallel and parses; else None."""
    if "DataParallel" not in source:
        return None
    try:
        return parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _functions_that_wrap(tree: ast.Module) -> tuple[set[str], set[str]]:
    found: set[str] = set()
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for function in ast_nodes.listed(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(function)
            if any(
                _dataparallel(call)
                for statement in function.body
                for call in ast_nodes.walk(statement)
            ):
                found.add(function.name)
    returning: set[str] = set()
    grown = bool(found)
    while grown:
        grown = False
        for function in functions:
            if function.name not in returning and _returns_wrap(function, returning):
                returning.add(function.name)
                grown = True
    return found, returning


def _dataparallel(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and (
        isinstance(node.func, ast.Name)
        and node.func.id == "DataParallel"
        or isinstance(node.func, ast.Attribute)
        and node.func.attr == "DataParallel"
    )


def _returns_wrap(function: ast.FunctionDef | ast.AsyncFunctionDef, returning: set[str]) -> bool:
    """`function` may return a DataParallel wrap (program_wrap_facts)."""
    nodes = ast_nodes.walk(function)
    bound: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        if node.value is not None and _wrap_value(node.value, returning, set()):
            bound.update(t for t in map(_spelled, targets) if t)
    return any(
        isinstance(node, ast.Return)
        and node.value is not None
        and _wrap_value(node.value, returning, bound)
        for node in nodes
    )


def _wrap_value(value: ast.expr, returning: set[str], bound: set[str]) -> bool:
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in MODULE_SELF_CALLS
    ):
        value = value.func.value
    if isinstance(value, ast.IfExp):
        return _wrap_value(value.body, returning, bound) or _wrap_value(
            value.orelse, returning, bound
        )
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        return _dataparallel(value) or name in returning
    return _spelled(value) in bound


def _spelled(node: ast.expr) -> str:
    """`model`, `self.model`: a name or an attribute chain on one, as written; "" else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([node.id, *reversed(parts)])


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


@dataclass(frozen=True)
class BuiltWraps:
    """What wrapper_results found: the statements binding a name to the result of a call
    of a function that returns a wrap (read through the def-use view, so a name is the
    wrap only where that binding reaches it), and attribute targets as spelled
    (`self.model = self._build()`)."""

    bindings: frozenset[cst.CSTNode] = frozenset()
    spelled: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.bindings or self.spelled)

    def holds(self, expr: cst.BaseExpression, flow: Callable[[], DefUse]) -> bool:
        """`expr` (`model`, `model.head`) is within such a wrap: its root name may hold
        one there, or it is an attribute target spelled so (or within one)."""
        text = code_of(expr)
        if any(text == s or text.startswith(s + ".") for s in self.spelled):
            return True
        if not self.bindings:
            return False
        root = expr
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name):
            return False
        return self._holds(flow(), root, 1)

    def _holds(self, flow: DefUse, name: cst.Name, hops: int) -> bool:
        """A binding of `name` is one of `bindings`; for a function's parameter, what a call
        of this module passes it (`hops` deep: `train(loader, model)` after `model =
        generate_model(args)`, stop 46's v3-C)."""
        for definition in flow.definitions(name):
            if definition.target in self.bindings:
                return True
            if hops and definition.kind == "param" and isinstance(definition.target, cst.Param):
                function = flow.function_around(definition.target)
                for site in flow.call_sites(function) if function is not None else []:
                    assert function is not None
                    argument = argument_for(site, function, definition.target)
                    if isinstance(argument, cst.Name) and self._holds(flow, argument, hops - 1):
                        return True
        return False


def wrapper_results(
    module: cst.Module,
    transform: MigrationTransform,
    wrappers: frozenset[str],
    is_wrap: Callable[[cst.CSTNode], bool],
) -> BuiltWraps:
    """What the results of calls of functions that return a wrap are assigned to (`model =
    generate_model(args)`, through `.cuda()`/`.to()`): the wrapped model built elsewhere.
    A module that wraps only so still trains a wrap: a module built beside it and handed to
    the same optimizer trains outside it (analysis/outside_parameters.py), and its output
    is cut per rank (batches/__init__.py). Stop 46 class v3-B/v3-C, okankop/Driver-Anomaly-
    Detection@6f7f251: `generate_model()` in model.py returns the DataParallel model,
    main.py's optimizer takes `list(model.parameters()) + list(model_head.parameters())`
    and its step cuts `vec[0:args.n_train_batch_size]`; migrated, each rank trained its own
    head and cut its 2 + 2 rows at 4, no word. A wrapping call whose result is not assigned
    (`model.parallelize()`) names nothing.

    Of `wrappers` (the functions whose body wraps, by name), only those that return the
    wrap count: this module's read through the def-use view (`returning_wrappers`), the
    other modules' as the program tells them (ProgramFacts.wrap_returns). And a name is
    the wrap only where the binding reaches (stop 47: `def distill(teacher)` wrapping its
    teacher and returning its student, called as `student = distill(Teacher())`, had made
    the function's own `student` a wrap, and its sync was dropped)."""
    if not wrappers:
        return BuiltWraps()
    calls = [c for c in nodes_of(module, cst.Call) if name_of(c.func) in wrappers]
    if not calls:
        return BuiltWraps()
    returning = returning_wrappers(module, is_wrap, transform.state.facts.wrap_returns)
    bindings: set[cst.CSTNode] = set()
    spelled: set[str] = set()
    for call in calls:
        if name_of(call.func) not in returning:
            continue
        target = wrap_target(call, transform)
        if target is None:
            continue
        node = assigned_target(call, transform)
        if isinstance(node, cst.Name):
            bindings.add(node)
        else:
            spelled.add(target)
    return BuiltWraps(frozenset(bindings), frozenset(spelled))


def returning_wrappers(
    module: cst.Module, is_wrap: Callable[[cst.CSTNode], bool], told: Iterable[str]
) -> frozenset[str]:
    """Names of the functions that may return a wrap: `module`'s own read through its
    def-use view (a return of a wrap call, of a name or `self.` attribute bound to one, or
    of a call of another such function; through `.cuda()`/`.to()` and if-expressions), and
    of the names `told` (the other modules', ProgramFacts.wrap_returns) those `module` does
    not define."""
    flow = view(module)
    functions = [f for f in flow.functions.values() if isinstance(f.node, cst.FunctionDef)]
    own = {f.name for f in functions}
    names = {n for n in told if n not in own}
    grown = True
    while grown:
        grown = False
        for function in functions:
            if function.name in names:
                continue
            if any(_holds_wrap(flow, r, is_wrap, names, set()) for r in function.returns):
                names.add(function.name)
                grown = True
    return frozenset(names)


def _holds_wrap(
    flow: DefUse,
    value: cst.BaseExpression,
    is_wrap: Callable[[cst.CSTNode], bool],
    names: set[str],
    seen: set[cst.CSTNode],
) -> bool:
    if value in seen or len(seen) > _BOUND:
        return False
    seen.add(value)
    value = unmoved(value)
    if isinstance(value, cst.IfExp):
        return any(_holds_wrap(flow, v, is_wrap, names, seen) for v in (value.body, value.orelse))
    if isinstance(value, cst.Call):
        return is_wrap(value) or name_of(value.func) in names
    definitions: list[Definition] = []
    if isinstance(value, cst.Name):
        definitions = flow.definitions(value)
    elif isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name):
        function = flow.function_around(value)
        if function is not None and function.owner is not None:
            if function.self_name == value.value.value:
                definitions = flow.attribute_definitions(function.owner, value.attr.value)
    return any(
        d.value is not None and not d.element and _holds_wrap(flow, d.value, is_wrap, names, seen)
        for d in definitions
    )


def contained_wrappers(source: str) -> set[str]:
    """Names of the functions and methods of `source` that wrap only models of their own:
    every DataParallel call is (part of) the value bound to a plain local name, and no such
    name leaves the function (returned, yielded, declared global or nonlocal, stored on an
    object or in a container). Such a function builds, wraps and trains its models inside
    (stop 46 v2-D, zhaoyuzhi/deepfillv2@84a13c0's `trainer.WGAN_trainer(opt)`, called under
    `if opt.gan_type == 'WGAN':`): the condition decides whether it runs, not whether what
    it trains is wrapped, so a call under a condition every rank decides alike is no wrap
    kept under a condition (DP012). `model.parallelize()` (DrQA's, wrapping `self.network`
    in place) is not one."""
    tree = _wrapping_tree(source)
    return _contained_in(tree) if tree is not None else set()


def _contained_in(tree: ast.Module) -> set[str]:
    return {
        function.name
        for function in ast_nodes.listed(tree)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and _contained(function)
    }


def _contained(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    nodes = list(ast.walk(function))
    calls = sum(1 for n in nodes if _dataparallel(n))
    if not calls:
        return False
    held: set[str] = set()
    bound = 0
    for node in nodes:
        if isinstance(node, ast.Assign) and any(_dataparallel(n) for n in ast.walk(node.value)):
            if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                return False
            held.add(node.targets[0].id)
            bound += sum(1 for n in ast.walk(node.value) if _dataparallel(n))
    if bound != calls:
        return False  # a wrap bound to an attribute, an element, or none

    # `generator(x)`, `generator.module`: a use of the model, not the model itself
    used = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    used |= {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}

    def mentions(value: ast.AST | None) -> bool:
        return value is not None and any(
            isinstance(n, ast.Name) and n.id in held and id(n) not in used for n in ast.walk(value)
        )

    for node in nodes:
        if isinstance(node, (ast.Global, ast.Nonlocal)) and held & set(node.names):
            return False
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)) and mentions(node.value):
            return False
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and mentions(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(not isinstance(t, ast.Name) for t in targets):
                return False
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _STORING
            and any(mentions(a) for a in node.args)
        ):
            return False
    return True


#: Methods that keep their argument in the object they are called on.
_STORING = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "__setitem__"})


def called_alike(
    t: MigrationTransform,
    tests: list[tuple[cst.BaseExpression, cst.CSTNode]],
    body: cst.BaseSuite,
    wrappers: frozenset[str],
    own: Callable[[], set[str]],
    is_dp: Callable[[cst.CSTNode], bool],
) -> bool:
    """A branch that wraps only by calling functions that wrap models of their own
    (`contained_wrappers`: this module's, `own()`, asked only here, and the program's,
    ProgramFacts.contained_wraps), under tests (each with the statement it guards) that
    every rank decides alike: every rank calls the same function, which wraps what it
    trains, so no wrap is kept under a condition (DP012; stop 46 v2-D, deepfillv2's
    `if opt.gan_type == 'WGAN': trainer.WGAN_trainer(opt)`)."""
    from dp2ddp.transforms.analysis.uniformity import RankUniformity

    nodes = list(walk(body))
    if any(is_dp(n) for n in nodes):
        return False
    called = {
        name.rpartition(".")[2]
        for n in nodes
        if isinstance(n, cst.Call) and (name := name_of(n.func)) is not None
    }
    if not called & wrappers:
        return False
    contained = frozenset(t.state.facts.contained_wraps) | frozenset(own())
    if not called & wrappers <= contained:
        return False
    module = tests[0][1]
    while not isinstance(module, cst.Module):
        above = t.parent(module)
        if above is None:
            return False
        module = above
    uniform = RankUniformity.for_pass(t, module)
    return all(uniform.value(test, at) for test, at in tests)
