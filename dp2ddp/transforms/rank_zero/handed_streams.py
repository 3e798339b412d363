"""A stream a caller in another module hands a function: its writes are prints there.

stream_names.py makes `out.write(...)` a print where every value `out` may hold on the
module's def-use view is `sys.stdout` / `sys.stderr`. A function that writes its report to
a stream parameter (`def report(counts, out): out.write(...)`, CoNLL's conlleval.py
vendored by hertz-pj/BERT-BiLSTM-CRF-NER-pytorch@b1f70a7) and is called from the entry
(`conlleval.report(counts, sys.stdout)`) had no call in its own module: the parameter was a
source the view could not type, and every rank wrote the report (stop 53 s1). A program
fact, read with `ast`:

- `stream_writers(tree)`: per module (once), `function|position|parameter` of its top-level
  functions whose parameter is the receiver of a `write` / `writelines` / `flush`;
- `handed_streams(writers, calls)`: over the modules whose text names such a function, each
  call of it (through the caller's imports) at that parameter, by position or keyword: a
  standard stream (`sys.stdout`, `sys.stderr`) or anything else (a file the caller opened,
  a name, a `*args`). For the writer's module: `function|parameter|s` where every call of
  another module hands a standard stream, `function|parameter|o` where one hands anything
  else (ProgramHints.stream_parameters). A write through an `|s` parameter is a print; one
  through an `|o` parameter is not (a file handle opened by the caller stays a file write,
  rank_zero's file rules), even where the parameter's default (`out=None`, then
  `out = sys.stdout`) alone would read as the stream.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Final

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import import_table, resolved_name
from dp2ddp.transforms._support.identifiers import mentions

if TYPE_CHECKING:  # discovery imports the migration pipeline, which imports this module
    from dp2ddp.program.discovery import ProgramModule

#: A stream's methods that show what they are given.
STREAM_METHODS: Final = frozenset({"write", "writelines", "flush"})
#: The process's standard streams, by qualified name.
STREAMS: Final = frozenset({"sys.stdout", "sys.stderr", "sys.__stdout__", "sys.__stderr__"})


def stream_writers(tree: ast.Module) -> frozenset[str]:
    """`function|position|parameter` of the module's top-level functions writing to a
    parameter (`out.write(...)`), `Class.method|...` of its top-level classes' methods, and
    `Class.__init__|...` of a parameter the class keeps and writes to (_method_writers)."""
    receivers: set[str] = set()
    kept = False  # some `self.A.write(...)`
    for node in ast_nodes.listed(tree):  # no call per node: every module is read
        if node.__class__ is ast.Call:
            func = node.func
            if func.__class__ is ast.Attribute and func.attr in STREAM_METHODS:
                inner = func.value
                if inner.__class__ is ast.Name:
                    receivers.add(inner.id)
                elif inner.__class__ is ast.Attribute and inner.value.__class__ is ast.Name:
                    kept = kept or inner.value.id == "self"
    if not receivers and not kept:
        return frozenset()
    found: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            found |= _method_writers(statement, receivers, kept)
        elif receivers and isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found |= _writers(statement, statement.name, receivers, 0)
    return frozenset(found)


def _writers(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, receivers: set[str], skip: int
) -> set[str]:
    """`name|position|parameter` of `function`'s parameters it writes to (`skip`: the
    leading parameters a call does not hand: a method's `self`)."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args][skip:]
    named = {a.arg: i for i, a in enumerate(positional)}
    named |= {a.arg: -1 for a in arguments.kwonlyargs}
    if not receivers & set(named):
        return set()
    found: set[str] = set()
    for node in ast_nodes.walk(function):
        called = node.func if isinstance(node, ast.Call) else None
        if (
            isinstance(called, ast.Attribute)
            and called.attr in STREAM_METHODS
            and isinstance(called.value, ast.Name)
            and called.value.id in named
        ):
            found.add(f"{name}|{named[called.value.id]}|{called.value.id}")
    return found


def _method_writers(cls: ast.ClassDef, receivers: set[str], kept: bool) -> set[str]:
    """`Class.method|position|parameter` of the class's methods writing to a parameter, and
    `Class.__init__|position|parameter` where `__init__` keeps the parameter in an attribute
    (`self.stream = stream`) that a method writes to (`self.stream.write(...)`): stop 54 s3."""
    methods = [m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    plain = [m for m in methods if not m.decorator_list]
    found: set[str] = set()
    if receivers:
        for method in plain:
            found |= _writers(method, f"{cls.name}.{method.name}", receivers, 1)
    init = next((m for m in plain if m.name == "__init__"), None)
    if init is None or not kept:
        return found
    written = {a for m in methods for a in _self_receivers(m)}
    held = {p for a, p in kept_parameters(cls, init).items() if a in written}
    return found | {f"{cls.name}.__init__{w}" for w in _positions(init, held)}


def _self_receivers(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The attributes `A` a method writes to as a stream: `self.A.write(...)`."""
    found: set[str] = set()
    for node in ast_nodes.walk(method):
        if node.__class__ is ast.Call:
            func = node.func
            if func.__class__ is ast.Attribute and func.attr in STREAM_METHODS:
                inner = func.value
                if (
                    inner.__class__ is ast.Attribute
                    and inner.value.__class__ is ast.Name
                    and inner.value.id == "self"
                ):
                    found.add(inner.attr)
    return found


def kept_parameters(
    cls: ast.ClassDef, init: ast.FunctionDef | ast.AsyncFunctionDef
) -> dict[str, str]:
    """Attribute -> the parameter of `__init__` it holds, where the class stores the
    attribute once, `self.A = parameter` in `__init__` (no other store in the class)."""
    parameters = {a.arg for a in [*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs]}
    stores: dict[str, list[ast.expr | None]] = {}
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast_nodes.walk(method):
            targets: list[ast.expr] = []
            value: ast.expr | None = None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                for part in ast.walk(target):
                    if (
                        isinstance(part, ast.Attribute)
                        and isinstance(part.value, ast.Name)
                        and part.value.id == "self"
                    ):
                        plain = method is init and isinstance(node, ast.Assign) and part is target
                        stores.setdefault(part.attr, []).append(value if plain else None)
    return {
        attribute: values[0].id
        for attribute, values in stores.items()
        if len(values) == 1 and isinstance(values[0], ast.Name) and values[0].id in parameters
    }


def _positions(init: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str]) -> set[str]:
    """`|position|parameter` of `__init__`'s parameters `names` (a call hands all but self)."""
    positional = [*init.args.posonlyargs, *init.args.args][1:]
    found = {f"|{i}|{a.arg}" for i, a in enumerate(positional) if a.arg in names}
    return found | {f"|-1|{a.arg}" for a in init.args.kwonlyargs if a.arg in names}


def program_streams(
    modules: Sequence[ProgramModule], writers: Sequence[frozenset[str]]
) -> dict[str, frozenset[str]]:
    """handed_streams over the program's `modules` whose text names a stream writer
    (`writers`: each module's stream_writers)."""
    found = {m.name: w for m, w in zip(modules, writers, strict=True) if w}
    # a method's (`Class.method`) and a kept stream's (`Class.__init__`): its class's name
    called = {w.partition("|")[0].partition(".")[0] for ws in found.values() for w in ws}
    if not called:
        return {}
    callers = (
        (m.name, m.passing_tree(), m.is_package)
        for m in modules
        if mentions(m.source.text, *called)
    )
    return handed_streams(found, callers)


def handed_streams(
    writers: dict[str, frozenset[str]],
    callers: Iterable[tuple[str, ast.Module, bool]],
) -> dict[str, frozenset[str]]:
    """Module name -> `function|parameter|s` / `|o` of its stream writers (`writers`: module
    name -> stream_writers), from each call in `callers` ((name, tree, is_package) of the
    modules whose text names one of the functions) of another module."""
    slots: dict[str, dict[str, str]] = {}  # "module.function" -> slot -> parameter
    owners: dict[str, tuple[str, str]] = {}  # "module.Class.method" -> (module, "Class.method")
    for module, found in writers.items():
        for writer in found:
            function, position, parameter = writer.split("|")
            named = slots.setdefault(f"{module}.{function}", {})
            owners[f"{module}.{function}"] = (module, function)
            named[parameter] = parameter
            if position != "-1":
                named[position] = parameter
    kinds: dict[str, set[str]] = {}  # "module.function|parameter" -> {"s", "o"}
    for name, tree, is_package in callers:
        table = import_table(tree, name, is_package)
        nodes = ast_nodes.listed(tree)
        instances = _instances(nodes, table)
        for node in nodes:
            if not isinstance(node, ast.Call):
                continue
            target = _target(node.func, table, instances, slots)
            slot = slots.get(target)
            if slot is None or owners[target] == (name, target.rpartition(".")[2]):
                continue  # a function's call in its own module: the def-use view's
            given = ast_nodes.call_slots(node)
            unknown = any(isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords
            )
            for key, parameter in slot.items():
                held = [a for at, a in given if at == key]
                if unknown and not held:
                    kinds.setdefault(f"{target}|{parameter}", set()).add("o")
                for argument in held:
                    stream = resolved_name(argument, table) in STREAMS
                    kinds.setdefault(f"{target}|{parameter}", set()).add("s" if stream else "o")
    out: dict[str, set[str]] = {}
    for key, seen in kinds.items():
        target, _, parameter = key.partition("|")
        module, function = owners[target]
        out.setdefault(module, set()).add(f"{function}|{parameter}|{'o' if 'o' in seen else 's'}")
    return {module: frozenset(found) for module, found in out.items()}


def _instances(nodes: list[ast.AST], table: dict[str, str]) -> dict[str, str]:
    """Name -> the class (qualified) every plain binding `name = C(...)` of the module makes
    it an instance of (one class for every binding of the name; any other binding: none)."""
    classes: dict[str, set[str]] = {}
    for node in nodes:
        if node.__class__ is not ast.Assign:
            continue
        for target in node.targets:
            if target.__class__ is not ast.Name:
                continue
            value = node.value
            made = resolved_name(value.func, table) if isinstance(value, ast.Call) else ""
            classes.setdefault(target.id, set()).add(made)
    return {n: next(iter(c)) for n, c in classes.items() if len(c) == 1 and "" not in c}


def _target(
    func: ast.expr, table: dict[str, str], instances: dict[str, str], slots: Mapping[str, object]
) -> str:
    """The writer a call runs: a function (`report(...)`), a class's `__init__`
    (`Logger(...)`), a method of an instance (`scorer.report(...)` of `scorer = Scorer()`,
    `Scorer().report(...)`)."""
    target = resolved_name(func, table)
    if target in slots:
        return target
    if target and f"{target}.__init__" in slots:
        return f"{target}.__init__"
    if not isinstance(func, ast.Attribute):
        return target
    made = func.value
    if isinstance(made, ast.Call):
        return f"{resolved_name(made.func, table)}.{func.attr}"
    if isinstance(made, ast.Name) and made.id in instances:
        return f"{instances[made.id]}.{func.attr}"
    return target
