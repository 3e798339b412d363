"""Which classes of a program a DataParallel may hold: wrapped themselves, built by a
wrapped class, or a base of either (DP022 and DP007 ask, stop 63 s3).

A class no DataParallel holds runs its forward() in the main process under DataParallel as
under DDP: a write to `self` there is the one object's (DP007 said it of C-3-Framework's
`CrowdCounter.forward()`, whose `self.CCN = DataParallel(self.CCN)` wraps only its child),
and a wrap of its own child is no DDP in a DDP (DP022's "where a CrowdCounter is wrapped as
well (not read here)"; GT-RIPL/Continual-Learning-Benchmark's agent). The reading is by last
names and over-approximates what is held: each DataParallel call's argument is resolved to
the classes it may build (a call of a class, or every binding in the module of the name or
attribute it reads, each a call, an alias of an import followed); an argument not so
resolved, or resolved to a program function (a factory), makes every class possibly held.
Then every name called in a held class's body is held (its children), transitively, and
the bases of a held class are held.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from dp2ddp.transforms._support.ast_nodes import last_name, listed, parse_python

if TYPE_CHECKING:
    import libcst as cst

    from dp2ddp.transforms._support.base import MigrationTransform

_WRAPPERS = frozenset({"DataParallel", "DistributedDataParallel"})  # a migrated one too
_MOVES = frozenset({"to", "cuda", "cpu", "half", "float", "double", "train"})


@dataclass(frozen=True)
class ModuleWraps:
    """One module's part: `wrapped` the class names its wraps build (None: one not
    resolved); `classes` per top-level class (name, its bases' last names, the names its
    body calls); `functions` its top-level functions."""

    wrapped: frozenset[str] | None
    classes: tuple[tuple[str, frozenset[str], frozenset[str]], ...]
    functions: frozenset[str]


def module_wraps(tree: ast.Module) -> ModuleWraps:
    """Read one module (see ModuleWraps)."""
    aliases: dict[str, set[str]] = {}
    bindings: dict[str, list[ast.expr]] = {}
    wraps: list[ast.expr | None] = []
    for node in listed(tree):  # the module's listing, shared with the other readers
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                aliases.setdefault(alias.asname or alias.name, set()).add(alias.name)
        elif isinstance(node, ast.Call) and last_name(node.func) in _WRAPPERS:
            wraps.append(node.args[0] if node.args else None)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, (ast.Name, ast.Attribute)):
                    bindings.setdefault(last_name(target), []).append(node.value)
    wrapped: set[str] = set()
    resolved = True
    for argument in wraps:
        built = _built(argument, bindings, aliases)
        resolved = resolved and built is not None
        wrapped |= built or set()
    classes = tuple(
        (
            node.name,
            frozenset(last_name(b) for b in node.bases),
            frozenset(
                name
                for c in ast.walk(node)
                if isinstance(c, ast.Call)
                for name in _named(c.func, aliases)
            ),
        )
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    )
    functions = frozenset(
        n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    )
    return ModuleWraps(frozenset(wrapped) if resolved else None, classes, functions)


def _named(func: ast.expr, aliases: dict[str, set[str]]) -> set[str]:
    """The names a call of `func` may call: its last name, through the module's import
    aliases (`from .VGG import VGG as net` in each branch: `net` is every one)."""
    name = last_name(func)
    return aliases.get(name, {name}) if name else set()


def _built(
    argument: ast.expr | None, bindings: dict[str, list[ast.expr]], aliases: dict[str, set[str]]
) -> set[str] | None:
    """The class names `argument` may be an instance of; None where not resolved. Its
    bindings that wrap (`x = DataParallel(x)`) or only move it (`x = x.cuda()`) pass."""
    argument = _unmoved(argument)
    if isinstance(argument, ast.Call):
        return _named(argument.func, aliases) or None
    if not isinstance(argument, (ast.Name, ast.Attribute)):
        return None
    spelled = last_name(argument)
    found: set[str] = set()
    for value in bindings.get(spelled, []):
        if any(isinstance(c, ast.Call) and last_name(c.func) in _WRAPPERS for c in ast.walk(value)):
            continue
        arms = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
        for arm in map(_unmoved, arms):
            if isinstance(arm, (ast.Name, ast.Attribute)) and last_name(arm) == spelled:
                continue  # moved in place
            if not isinstance(arm, ast.Call) or not _named(arm.func, aliases):
                return None
            found |= _named(arm.func, aliases)
    return found or None


def _unmoved(value: ast.expr | None) -> ast.expr | None:
    """`Net().cuda()` -> `Net()`."""
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _MOVES
    ):
        value = value.func.value
    return value


def held_classes(modules: Iterable[ModuleWraps]) -> frozenset[str] | None:
    """The last names of the classes a DataParallel of the program may hold (see the
    module docstring); None when any may be."""
    reads = list(modules)
    functions = frozenset().union(*(m.functions for m in reads))
    held: set[str] = set()
    for module in reads:
        if module.wrapped is None or module.wrapped & functions:
            return None
        held |= module.wrapped
    calls: dict[str, set[str]] = {}
    bases: dict[str, set[str]] = {}
    for module in reads:
        for name, parents, called in module.classes:
            calls.setdefault(name, set()).update(called)
            bases.setdefault(name, set()).update(parents)
    todo = list(held)
    while todo:
        name = todo.pop()
        for more in calls.get(name, set()) | bases.get(name, set()):
            if more not in held:
                held.add(more)
                todo.append(more)
    return frozenset(held)


def wrapped_directly(modules: Iterable[ModuleWraps]) -> frozenset[str]:
    """The last names of the classes a DataParallel of the program wraps itself (its
    argument resolved to a construction of one): the program's trainer classes, whose own
    methods may train them past the wrap's forward (`model.module.fit(loader)`, round 23
    Andrewzh112/codebase's avae). A module whose wraps are not resolved adds none."""
    return frozenset().union(*(m.wrapped for m in modules if m.wrapped is not None))


def never_held(t: MigrationTransform, module: cst.Module, name: str) -> bool:
    """No DataParallel of the program holds an instance of a class named `name` (its bare
    name): the program's ModelClass.held where migrated as a program, this module's own
    reading for a single file; False where unknown."""
    facts = t.state.facts
    if facts.in_program and facts.models:  # none told (a script and its helpers): read it
        found = [m for m in facts.models if m.name.rpartition(".")[2] == name]
        return bool(found) and not any(m.held for m in found)
    held = _single(t.state.text or module.code)
    return held is not None and name not in held


@lru_cache(maxsize=4)
def _single(text: str) -> frozenset[str] | None:
    try:
        return held_classes([module_wraps(parse_python(text))])
    except (SyntaxError, ValueError, RecursionError):
        return None
