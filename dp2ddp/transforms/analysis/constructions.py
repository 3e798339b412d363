"""What the program's modules hand the constructions of another module's classes (stop 48:
`Trainer(net(), teacher=teacher)` in train.py, `class Trainer` in trainer.py, whose
`__init__` wraps the student and trains the teacher beside it).

Read with `ast` (program_constructions), only in a module that names a top-level class of a
module naming DataParallel: each call of such a class its imports resolve
(`trainer.Trainer`), with what each argument is: a wrap
(DataParallel), a construction (a call of a class or function of that module that makes no
wrap, or of an import: `nn.Linear(6, 1)`, through `.cuda()`/`.to()`, and a name bound only
to one in the same scope, or to several, each a plain assignment of the scope's own block:
the latest above the call), or else `other`. The program hints give each module the calls
of its own classes (ProgramHints.constructed), an import of another program module being no
construction proved; analysis/handed_parameters.py counts them beside the module's own."""

from __future__ import annotations

import ast
from collections.abc import Callable

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import dotted, resolved_name

#: The wrap classes a construction may be, by last name.
WRAPS = ("DataParallel", "DistributedDataParallel")
#: Module methods that return the module itself (`DataParallel(m).cuda().train()`).
_MOVES = ("cuda", "to", "cpu", "float", "double", "half", "train", "eval")


def program_constructions(
    modules: list[tuple[str, frozenset[str], bool, frozenset[str]]],
    tree: Callable[[int], tuple[ast.Module, dict[str, str]]],
    reexported: Callable[[set[str]], dict[str, str]] = lambda _: {},
) -> list[tuple[str, frozenset[str]]]:
    """Each module's `constructions` of the program's classes that may train a model beside
    a wrap: `modules` gives each module's name, its top-level classes, whether its text
    names DataParallel (or `.module`: its classes may be handed a wrap, sample_grids asks),
    and the names it refers to; `tree(index)` its ast and import
    table; `reexported(targets)` the names packages give them (`pkg.Trainer` for
    `pkg.trainer.Trainer`, pkg/__init__.py's `from .trainer import Trainer`), each with the
    class's own: a call through one is a call of that class (stop 49: it was matched to
    none, DP119 said where the construction proved the sync). Only a module that names
    such a class is read (most programs: none or one)."""
    targets = {
        f"{name}.{c}" for name, classes, wraps, _ in modules if name and wraps for c in classes
    }
    aliases = reexported(targets) if targets else {}
    short = {t.rpartition(".")[2] for t in targets | set(aliases)}
    found = [
        (name, constructions(*tree(index), targets, aliases))
        for index, (name, _, _, refers) in enumerate(modules)
        if short & refers
    ]
    if not any(calls for _, calls in found):
        return found
    where = {name: index for index, (name, _, _, _) in enumerate(modules) if name}
    builders: dict[str, set[str]] = {}

    def built(kind: str) -> str:
        """`ext:models.build` -> `local` where `build` is a top-level function or class of
        the program's module `models` that makes no wrap (stop 49: a model built by another
        module's function counted as other, DP119 said), as a builder of the module's own."""
        head, _, tail = kind[4:].rpartition(".")
        if not kind.startswith("ext:") or head not in where:
            return kind
        if head not in builders:
            builders[head] = _local_builders(tree(where[head])[0])
        return "local" if tail in builders[head] else kind

    return [(name, frozenset(_rekind(call, built) for call in calls)) for name, calls in found]


def _rekind(call: str, kind_of: Callable[[str], str]) -> str:
    """`target|line|slot=kind;...` with each kind read again by `kind_of`."""
    target, line, slots = call.split("|")
    kinds = []
    for slot in slots.split(";") if slots else []:
        key, _, kind = slot.partition("=")
        kinds.append(f"{key}={kind_of(kind)}")
    return f"{target}|{line}|{';'.join(kinds)}"


def constructions(
    tree: ast.Module, table: dict[str, str], targets: set[str], aliases: dict[str, str]
) -> frozenset[str]:
    """`target|line|slot=kind;...` of each call of the module of one of `targets` (dotted
    class names) or of a name a package gives one (`aliases`: that name -> the class's),
    that passes arguments (slot: the position or keyword, `*` for an unpacking; kind: wrap,
    other, local, or `ext:<dotted name>` for a call of an import); the target is the
    class's own name. One listing of the module; each scope's bindings gathered once,
    where there is such a call."""
    listed = ast_nodes.listed(tree)
    calls = [
        n
        for n in listed
        if isinstance(n, ast.Call)
        and (n.args or n.keywords)
        and (resolved_name(n.func, table) in targets or resolved_name(n.func, table) in aliases)
    ]
    if not calls:
        return frozenset()
    scopes: dict[int, ast.AST] = {}
    for scope in listed:  # listed outside in: the innermost scope is kept
        if isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for node in ast.walk(scope):
                scopes[id(node)] = scope
    stores: dict[tuple[int, str], int] = {}
    bound: dict[tuple[int, str], ast.expr] = {}
    straight: dict[tuple[int, str], list[ast.Assign]] = {}
    for node in listed:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            key = (id(scopes.get(id(node), tree)), node.id)
            stores[key] = stores.get(key, 0) + 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:  # bound elsewhere too: never one binding
                stores[(id(tree), name)] = stores[(id(scopes[id(node)]), name)] = 2
                straight[(id(tree), name)] = straight[(id(scopes[id(node)]), name)] = []
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            if isinstance(left := node.targets[0], ast.Name):
                key = (id(scopes.get(id(node), tree)), left.id)
                bound[key] = node.value
                if _top(node, scopes, tree):
                    straight.setdefault(key, []).append(node)
    local = _local_builders(tree)
    found: set[str] = set()
    for node in calls:
        target = resolved_name(node.func, table)
        target = aliases.get(target, target)
        home = id(scopes.get(id(node), tree))
        values = [
            ("*" if isinstance(a, ast.Starred) else str(i), a) for i, a in enumerate(node.args)
        ]
        values += [(k.arg or "*", k.value) for k in node.keywords]
        slots = []
        for slot, value in values:
            if isinstance(value, ast.Name):
                held = (home, value.id)
                one = stores.get(held) == 1 and held in bound
                value = bound[held] if one else _reaching(node, held, stores, straight, value)
            slots.append(f"{slot}={_kind(value, table, local)}")
        found.add(f"{target}|{node.lineno}|{';'.join(slots)}")
    return frozenset(found)


def _top(node: ast.stmt, scopes: dict[int, ast.AST], tree: ast.Module) -> bool:
    """`node` is a statement of its scope's own block (the module's, a function's body)."""
    return any(s is node for s in getattr(scopes.get(id(node), tree), "body", ()))


def _reaching(
    call: ast.Call,
    held: tuple[int, str],
    stores: dict[tuple[int, str], int],
    straight: dict[tuple[int, str], list[ast.Assign]],
    name: ast.Name,
) -> ast.expr:
    """The value of the binding of `name` that reaches `call` where every binding of it in
    the scope is a plain assignment of the scope's own block (straight-line code: the
    latest one above the call, wherever in the scope the call lies; Cold-Diffusion's
    celebA_128.py: `diffusion = GaussianDiffusion(model, ...)`, then `diffusion =
    torch.nn.DataParallel(diffusion, ...)`, then `Trainer(diffusion, ...)`); else `name`."""
    assigns = straight.get(held, [])
    if not assigns or len(assigns) != stores.get(held):
        return name
    before = [a for a in assigns if a.end_lineno is not None and a.end_lineno < call.lineno]
    if not before:
        return name
    return max(before, key=lambda a: a.lineno).value


def _local_builders(tree: ast.Module) -> set[str]:
    """The module's top-level classes and functions that call no DataParallel."""
    return {
        s.name
        for s in tree.body
        if isinstance(s, (ast.ClassDef, ast.FunctionDef))
        and not any(
            isinstance(n, ast.Call) and (dotted(n.func) or [""])[-1] in WRAPS for n in ast.walk(s)
        )
    }


def unmoved(value: ast.expr) -> ast.expr:
    """The module under a chain of module methods that return it (`m.cuda().train()` -> `m`)."""
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _MOVES
    ):
        value = value.func.value
    return value


def _kind(value: ast.expr, table: dict[str, str], local: set[str]) -> str:
    """What one argument is (a name already read through its one binding)."""
    value = unmoved(value)
    if not isinstance(value, ast.Call):
        return "other"
    parts = dotted(value.func)
    if parts is None:
        return "other"
    if parts[-1] in WRAPS:
        return "wrap"
    if len(parts) == 1 and parts[0] in local:
        return "local"
    target = resolved_name(value.func, table)
    return f"ext:{target}" if target else "other"


def constructed(
    name: str, every: list[tuple[str, frozenset[str]]], program: set[str]
) -> frozenset[str]:
    """For the module `name`, `Class|slot=kind;...` of the calls of its classes
    in the program's other modules (`every`: each module's name and `constructions`), each
    kind `built` (local, or an import of no program module: `program`, their names) or
    other."""
    found: set[str] = set()
    if not name:
        return frozenset()  # a file migrated alone, or the entry: imported by no module
    for other, calls in every:
        if other == name:
            continue
        for call in calls:
            target, _, slots = call.split("|")
            head, _, tail = target.rpartition(".")
            if head != name or not tail:
                continue
            kinds = [_built(slot, program) for slot in slots.split(";") if slot]
            found.add(f"{tail}|{';'.join(kinds)}")  # alike calls once: alike hints
    return frozenset(found)


def _built(slot: str, program: set[str]) -> str:
    key, _, kind = slot.partition("=")
    if kind == "wrap":
        return f"{key}=wrap"  # the DataParallel wrap: no construction (sample_grids asks)
    if kind == "local":
        return f"{key}=built"
    if kind.startswith("ext:"):
        target = kind[4:]
        if not any(target == p or target.startswith(p + ".") for p in program):
            return f"{key}=built"
    return f"{key}=other"
