"""Values that cross a program's modules (uniformity.py's rules for one module ask these).

Configuration objects cross modules and classes: `__init__`'s parameter of a top-level class
is uniform when the class is constructed at exactly one place in the program (every other
mention of its name is an import; no `x.__init__(...)` but `super().__init__(...)`) and that
call passes a uniform value; one place, because two could pass different uniform values and
which one built an object could depend on the rank. An attribute set only from it in
`__init__` is then uniform by the attribute rule. In a program (program/uniformity.py) that
call may be in another module, judged there by these rules, and a call of a top-level
function of another program module (imported by name, or by the module's single `from m
import *`) is uniform when every return of it is; in a single file the file is the program.

A parsed command line (stop 47, okankop/Driver-Anomaly-Detection@6f7f251): `args =
parse_args()`, a function returning `parser.parse_args()`, is the same on every rank
(torchrun passes every process the same argv), and so is `args.mode` when every store of
`.mode` that may reach that object is uniform. A store of `.mode` in another module used to
count whatever its object: `self.mode = mode` in a transform class of spatial_transforms.py
made `if args.mode == 'train':` rank-dependent, and the head built under it was not synced
(DP068). An object `parsed_namespace` proves to be what `ArgumentParser(...).parse_args()`
made (no `namespace=`: a fresh `argparse.Namespace`) is no instance of a program class, so
a store through a method's own instance (`self.x = ...` in a method of class C) cannot reach
it; unless some module hands C's method another object as `self` (`C.m(obj, ...)` with obj
not the calling method's own `self`): then C's stores count (program/uniformity.py,
`_stored`). Every other store of the name, in any module, still counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.nodes import name_of
from dp2ddp.transforms.analysis.module_index import argument, called_name, direct_calls

if TYPE_CHECKING:
    from dp2ddp.transforms.analysis.uniformity import RankUniformity

#: argparse's parsing methods -> the element of their result that is the Namespace.
_PARSERS: dict[str, tuple[int, ...]] = {"parse_args": (), "parse_known_args": (0,)}
_ARGUMENT_PARSER = "argparse.ArgumentParser"


def init_parameter(
    u: RankUniformity, owner: cst.ClassDef, index: int | None, name: str, never_none: bool = False
) -> bool:
    """`__init__`'s parameter `name`: uniform when the class is constructed at exactly one
    place in the program, by a direct call, which passes a uniform value (one place: two
    could pass different uniform values, and which one built the object could depend on the
    rank). In a single file the file is the program. `never_none`: the question is whether
    that value is never None (none_tests.py), not whether it is uniform."""
    program = u.program_uniform()
    if program is not None:
        uniform, path = program
        return uniform.init_parameter(path, owner.name.value, index, name, never_none)
    if u.program is not None:
        return False  # a module of a program without the program's facts
    if direct_calls(parse_python(u.module.code), owner.name.value) != 1:
        return False
    return construction_argument_uniform(u, owner.name.value, index, name, never_none)


def function_parameter(
    u: RankUniformity, function: cst.FunctionDef, index: int | None, name: str
) -> bool:
    """A parameter of a top-level function its own module never calls: uniform when the
    program calls it at exactly one place, directly, passing a uniform value there (the
    program's init_parameter question, asked of the function's name). Before, "called from
    elsewhere: unknown": nblt/Sub-AT@9f3bcd5's `get_datasets(args)` of utils.py, called once
    by the entry with its parsed command line, made `if args.datasets == 'CIFAR10'` a
    condition not every rank may pass, and DP065 said so (stop 63 s3)."""
    program = u.program_uniform()
    if program is None or _top_level_function(u, function.name.value) is not function:
        return False
    uniform, path = program
    return uniform.init_parameter(path, function.name.value, index, name)


def construction_argument_uniform(
    u: RankUniformity, class_name: str, index: int | None, name: str, never_none: bool = False
) -> bool:
    """The one call of `class_name` in this module passes a uniform value for its parameter
    `name` (positional `index`, `self` not counted); `never_none`: a never-None value."""
    sites = [c for c in u.index.calls if called_name(c) == class_name]
    if len(sites) != 1 or any(a.star for a in sites[0].args):
        return False
    value = argument(sites[0], name, index)
    if value is None:
        return False
    return u.never_none(value) if never_none else u.value(value, sites[0])


def _top_level_function(u: RankUniformity, name: str) -> cst.FunctionDef | None:
    """This module's top-level function `name`, bound nowhere else."""
    binders = [s for s in u.module.body if name in u.index.bound_names(s)]
    if len(binders) != 1 or not isinstance(binders[0], cst.FunctionDef):
        return None
    if any(u.index.declared_global(f, name) for fs in u.index.functions.values() for f in fs):
        return None
    return binders[0]


def top_level_function_returns_uniform(u: RankUniformity, name: str) -> bool:
    """This module's top-level function `name`, bound nowhere else, returns a uniform value."""
    function = _top_level_function(u, name)
    return function is not None and u.returns_uniform(function)


def top_level_function_returns_namespace(u: RankUniformity, name: str) -> bool:
    """This module's top-level function `name`, bound nowhere else, returns a parsed command
    line (see the module docstring) at every return."""
    function = _top_level_function(u, name)
    if function is None:
        return False
    found = view(u.module).functions.get(function)
    if found is None or found.yields or not found.returns:
        return False
    return all(parsed_namespace(u, value) for value in found.returns)


def _imported_function(u: RankUniformity, func: cst.BaseExpression) -> tuple[str, str] | None:
    """(module, function) of a call of another program module's top-level function imported
    by name (`from opts import parse_opts`, `opts.parse_opts`), or by the module's single
    `from module import *`; None otherwise."""
    program = u.program_uniform()
    if program is None:
        return None
    uniform, path = program
    names = u.view.qualified_names(func)
    if len(names) == 1 and u.index.imported_only(name_of(func).split(".")[0]):
        (qualified,) = names
        module, _, function = qualified.rpartition(".")
        if module:
            return module, function
    if not isinstance(func, cst.Name) or u.index.bound_anywhere(func.value):
        return None
    source = uniform.star_source(path, func.value)
    return None if source is None else (source, func.value)


def external_call(u: RankUniformity, func: cst.BaseExpression) -> bool:
    """A call of a top-level function of another program module (imported by name, or by a
    single `from module import *`) that returns a uniform value."""
    program, called = u.program_uniform(), _imported_function(u, func)
    return program is not None and called is not None and program[0].returns_uniform(*called)


def stored_elsewhere(u: RankUniformity, expr: cst.Attribute, owner: str = "") -> bool:
    """Another program module may store `expr`'s attribute on `expr`'s object: it stores one
    of that name, and the object is not a parsed command line or the store may reach one
    (see the module docstring); `owner`: `expr` is `self.x` in a method of that class
    (uniformity.py's `_own_class`), and a store on another class's `self` cannot reach it."""
    program = u.program_uniform()
    if program is None:
        return False
    uniform, path = program
    attribute = expr.attr.value
    if not uniform.attribute_assigned_elsewhere(path, attribute, False, owner):
        return False
    return not parsed_namespace(u, expr.value) or uniform.attribute_assigned_elsewhere(
        path, attribute, True, owner
    )


def parsed_namespace(u: RankUniformity, expr: cst.BaseExpression) -> bool:
    """`expr` is the object `ArgumentParser(...).parse_args()` made, without `namespace=`
    (`parse_known_args()`'s first element too): through the names bound to it (a store of
    one of its attributes, `args.x = v`, changes the object, not which one it is), calls of
    this module's functions returning it at every return, and calls of another program
    module's top-level function that does."""
    flow = view(u.module)
    todo: list[tuple[cst.BaseExpression, tuple[int, ...]]] = [(expr, ())]
    seen: set[tuple[int, tuple[int, ...]]] = set()
    while todo:
        node, element = todo.pop()
        if (id(node), element) in seen:
            continue
        seen.add((id(node), element))
        if isinstance(node, cst.Name):
            bindings = [d for d in flow.reaching(node) if d.kind != "store"]
            if not bindings or any(
                d.kind not in ("assign", "annassign") or d.value is None for d in bindings
            ):
                return False
            todo += [(d.value, d.element + element) for d in bindings if d.value is not None]
        elif not isinstance(node, cst.Call) or not _made_by(u, flow, node, element, todo):
            return False
    return True


def _made_by(
    u: RankUniformity,
    flow: DefUse,
    call: cst.Call,
    element: tuple[int, ...],
    todo: list[tuple[cst.BaseExpression, tuple[int, ...]]],
) -> bool:
    """`call` makes a parsed command line (its part `element`), or returns what the values it
    adds to `todo` hold."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in _PARSERS:
        positional = [a for a in call.args if a.keyword is None]
        return (
            element == _PARSERS[func.attr.value]
            and len(positional) <= 1  # the second is `namespace`
            and not any(a.star for a in call.args)
            and not any(a.keyword is not None and a.keyword.value == "namespace" for a in call.args)
            and _argument_parser(u, flow, func.value)
        )
    if not isinstance(func, cst.Name):
        return False
    callees = flow.callees(call)
    if callees:
        if not all(f.owner is None and f.returns and not f.yields for f in callees):
            return False
        todo += [(value, element) for f in callees for value in f.returns]
        return True
    program, called = u.program_uniform(), _imported_function(u, func)
    return (
        not element
        and program is not None
        and called is not None
        and program[0].returns_namespace(*called)
    )


def _argument_parser(u: RankUniformity, flow: DefUse, expr: cst.BaseExpression) -> bool:
    """`expr` is a name every binding of which is a call of argparse.ArgumentParser."""
    if isinstance(expr, cst.Call):
        return _ARGUMENT_PARSER in u.view.qualified_names(expr.func)
    if not isinstance(expr, cst.Name):
        return False
    bindings = [d for d in flow.reaching(expr) if d.kind != "store"]
    return bool(bindings) and all(
        d.kind == "assign"
        and not d.element
        and isinstance(d.value, cst.Call)
        and _ARGUMENT_PARSER in u.view.qualified_names(d.value.func)
        for d in bindings
    )
