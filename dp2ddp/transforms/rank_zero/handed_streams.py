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
from collections.abc import Iterable, Sequence
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
    parameter (`out.write(...)`)."""
    receivers: set[str] = set()
    for node in ast_nodes.listed(tree):  # no call per node: every module is read
        if node.__class__ is ast.Call:
            func = node.func
            if func.__class__ is ast.Attribute and func.attr in STREAM_METHODS:
                if func.value.__class__ is ast.Name:
                    receivers.add(func.value.id)
    if not receivers:
        return frozenset()
    found: set[str] = set()
    for function in tree.body:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        arguments = function.args
        positional = [*arguments.posonlyargs, *arguments.args]
        named = {a.arg: i for i, a in enumerate(positional)}
        named |= {a.arg: -1 for a in arguments.kwonlyargs}
        if not receivers & set(named):
            continue
        for node in ast_nodes.walk(function):
            called = node.func if isinstance(node, ast.Call) else None
            if (
                isinstance(called, ast.Attribute)
                and called.attr in STREAM_METHODS
                and isinstance(called.value, ast.Name)
                and called.value.id in named
            ):
                found.add(f"{function.name}|{named[called.value.id]}|{called.value.id}")
    return frozenset(found)


def program_streams(
    modules: Sequence[ProgramModule], writers: Sequence[frozenset[str]]
) -> dict[str, frozenset[str]]:
    """handed_streams over the program's `modules` whose text names a stream writer
    (`writers`: each module's stream_writers)."""
    found = {m.name: w for m, w in zip(modules, writers, strict=True) if w}
    called = {w.partition("|")[0] for ws in found.values() for w in ws}
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
    for module, found in writers.items():
        for writer in found:
            function, position, parameter = writer.split("|")
            named = slots.setdefault(f"{module}.{function}", {})
            named[parameter] = parameter
            if position != "-1":
                named[position] = parameter
    kinds: dict[str, set[str]] = {}  # "module.function|parameter" -> {"s", "o"}
    for name, tree, is_package in callers:
        table = import_table(tree, name, is_package)
        for node in ast_nodes.listed(tree):
            if not isinstance(node, ast.Call):
                continue
            target = resolved_name(node.func, table)
            slot = slots.get(target)
            if slot is None or target.rpartition(".")[0] == name:
                continue
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
        module, _, function = target.rpartition(".")
        out.setdefault(module, set()).add(f"{function}|{parameter}|{'o' if 'o' in seen else 's'}")
    return {module: frozenset(found) for module, found in out.items()}
