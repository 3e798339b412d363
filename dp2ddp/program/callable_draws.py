"""The program's drawing helpers, and the calls of its objects that draw across modules.

`program_draws` is what ProgramFacts.draws tells every module: each module's own drawing
functions and methods (hazards/module_draws.py, `module.Class.__call__` for a class whose
`__call__` draws), the chains through modules and re-exports (draw_chains.py), and, here,
what calling one of the program's objects draws where the draw is in another module than
the object's class or the object itself:

* a class whose `__call__` (or, without one, `forward`: a torch module's call runs it)
  calls, itself or through the methods of the class it calls by `self.`, a drawing helper
  of another module (`return x * util.rand_scale()`): `module.Class.__call__` (or
  `module.Class.forward`, as a forward's own draw is told: HelperDraws._forwards follows it
  for a call of an instance no DataParallel wraps);
* a module-level instance of a drawing class, or a module-level object built from a list
  of them (`JITTER = Jitter()`, `AUGMENT = Compose([Crop(), Jitter()])`): calling it
  draws, `module.JITTER.__call__`.

Why (issue 28, round 23, problem A; imtiazziko/LaplacianShot@5de2612): a Dataset calls
`self.transform(img)` per sample; the transform is the program's own class defined in
another module (`ImageJitter` in datasets/imagejitter.py draws `torch.rand`), built by the
training script and handed to the dataset. Every rank seeds torch alike, so rank r's k-th
sample got every rank's k-th draw, where DataParallel drew one stream over the whole global
batch; DP067 was said only where the class was in the dataset's module. The dataset draws'
finder (transforms/shared_draws/callable_draws.py) asks what calling a handed transform
draws (HelperDraws.of_value), through these names.

Read once a module (Project.remembered), from Python's ast (`passing_tree`, not kept) and
only for a module that may hold one: a class with a `__call__`/`forward` in a module that
imports a drawing helper, or a module that defines or imports a drawing class.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial

from dp2ddp.facts import HelperDraw
from dp2ddp.program.discovery import Program, ProgramModule
from dp2ddp.program.draw_chains import chained_draws, plain_imports
from dp2ddp.program.project import Project
from dp2ddp.program.reexports import module_bindings
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import dotted

#: Rounds of following classes and instances through one another.
_ROUNDS = 16
#: The methods a call of an instance runs: its `__call__`, else a torch module's forward.
_CALLED = ("__call__", "forward")
_CALL = "__call__"


def program_draws(program: Program, project: Project) -> dict[str, HelperDraw]:
    """The drawing helpers of every module of `program`, by qualified name (see the module
    docstring): each module's own reading, chains, and the calls of objects."""
    from dp2ddp.transforms.hazards.module_draws import module_draws

    draws: dict[str, HelperDraw] = {}
    for each in program.modules:
        draws.update(project.draws(each, module_draws))
    # chains through modules, re-exports, `pkg.__dict__[name]` (stop 34, R1)
    draws.update(chained_draws(program, draws, module_bindings))
    draws.update(object_draws(program, project, draws))
    return draws


@dataclass(frozen=True)
class _Objects:
    """One module's classes that may be called and its module-level objects, with the
    absolute names of what each calls or is built from, in source order."""

    #: class name -> its `__call__` (else `forward`) and what it calls, through `self.`
    #: methods
    calls: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    #: module-level name -> the classes and objects it is built from
    built: dict[str, list[str]] = field(default_factory=dict)


def _resolver(module: ProgramModule, tree: ast.Module, bound: Mapping[str, str]) -> dict[str, str]:
    """Each name the module binds at its top level -> its absolute name."""
    own: dict[str, str] = dict(bound)
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own[statement.name] = f"{module.name}.{statement.name}"
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    own[target.id] = f"{module.name}.{target.id}"
    return own


def _absolute(node: ast.expr, names: Mapping[str, str]) -> str | None:
    parts = dotted(node)
    if parts is None or parts[0] not in names:
        return None
    return ".".join([names[parts[0]], *parts[1:]])


def _read(module: ProgramModule, bound: Mapping[str, str]) -> _Objects:
    """The module's _Objects (see there)."""
    try:
        tree = module.passing_tree()
        names = _resolver(module, tree, bound)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _Objects()
    found = _Objects()
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            methods = {
                s.name: s
                for s in statement.body
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
            start = next((m for m in _CALLED if m in methods), None)
            if start is not None:
                found.calls[statement.name] = (start, _method_calls(methods, start, names))
        elif isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call):
            built = _parts(statement.value, names)
            for target in statement.targets:
                if isinstance(target, ast.Name) and built:
                    found.built[target.id] = built
    return found


def _method_calls(
    methods: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef],
    start: str,
    names: Mapping[str, str],
) -> list[str]:
    """What the method `start` calls, and the methods it calls by `self.`, transitively."""
    todo, done, found = [start], set(), []
    while todo:
        name = todo.pop(0)
        if name in done or name not in methods:
            continue
        done.add(name)
        calls = [n for n in ast_nodes.walk(methods[name]) if isinstance(n, ast.Call)]
        for call in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            parts = dotted(call.func)
            if parts is not None and parts[0] == "self" and len(parts) == 2:
                todo.append(parts[1])
            elif (target := _absolute(call.func, names)) is not None:
                found.append(target)
    return found


def _parts(value: ast.Call, names: Mapping[str, str]) -> list[str]:
    """What a module-level `value` is built from: the class it constructs, and the classes
    and objects listed in its first argument (`Compose([Crop(), JITTER])`)."""
    found = [t] if (t := _absolute(value.func, names)) is not None else []
    listed = value.args[0] if value.args else None
    if isinstance(listed, (ast.List, ast.Tuple)):
        for element in listed.elts:
            head = element.func if isinstance(element, ast.Call) else element
            if (target := _absolute(head, names)) is not None:
                found.append(target)
    return found


def object_draws(
    program: Program, project: Project, draws: Mapping[str, HelperDraw]
) -> dict[str, HelperDraw]:
    """`module.Class.__call__` and `module.object.__call__` for the program's classes and
    module-level objects whose call draws through another module (the module docstring)."""
    names = dict(draws)
    if not names:
        return {}
    holders = {k.rsplit(".", i)[0] for k in names for i in range(1, k.count(".") + 1)}
    bound = {m.name: {**plain_imports(m), **module_bindings(m)} for m in program.modules}
    read: dict[str, _Objects] = {}
    #: the modules defining a method a call of an instance runs (the text read once)
    callers = {m.name for m in program.modules if any(f"def {c}" in m.source.text for c in _CALLED)}

    def callable_draw(target: str) -> HelperDraw | None:
        return names.get(f"{target}.{_CALL}")

    for _ in range(_ROUNDS):
        changed = False
        for module in program.modules:
            imports = bound[module.name].values()
            calling = module.name in callers and any(t in names or t in holders for t in imports)
            building = module.name in holders or any(callable_draw(t) for t in imports)
            if not (calling or building):
                continue
            if module.name not in read:
                remembered = ("object_draws", module.real, module.name, module.path)
                reader = partial(_read, module, bound[module.name])
                read[module.name] = project.remembered(remembered, reader)
            objects = read[module.name]
            for cls, (method, callees) in objects.calls.items():
                # a torch module's forward as `.forward`, as its own draw is told: a call of
                # an instance runs it unless DataParallel wraps it (HelperDraws._forwards)
                key = f"{module.name}.{cls}.{method}"
                first = next((d for c in callees if (d := names.get(c) or callable_draw(c))), None)
                if key not in names and first is not None:
                    names[key] = replace(first, mixes=None)
                    changed = True
            for name, parts in objects.built.items():
                key = f"{module.name}.{name}.{_CALL}"
                first = next((d for p in parts if (d := callable_draw(p))), None)
                if key not in names and first is not None:
                    names[key] = first
                    holders.add(module.name)
                    changed = True
        if not changed:
            break
    # as chained_draws: the entry's own objects are told to no module when none imports it
    entry = program.entry.name
    imported = any(
        t == entry or t.startswith(f"{entry}.")
        for module in program.modules
        if module.name != entry
        for t in bound[module.name].values()
    )
    return {
        k: v
        for k, v in names.items()
        if k not in draws and (imported or not k.startswith(f"{entry}."))
    }
