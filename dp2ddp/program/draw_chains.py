"""Drawing helpers across modules: chains, package re-exports and module registries.

hazards/draws.py reads each module alone: a function draws when it, or a function of its
own module it calls, calls a draw (`np.random.uniform`). Three shapes of a real program went
unseen (docs/real-world.md, stop 34, R1: ClementPinard/FlowNetPytorch@d5f3292), so the train
/test split its dataset factory draws from the unseeded global stream was drawn by each rank
on its own, each rank sharded another list, and `migrate --check` passed:

* a chain through modules: `flying_chairs()` (datasets/flyingchairs.py) calls
  `make_dataset()`, which calls `split2list()` imported from datasets/util.py, which draws;
* a package re-export: datasets/__init__.py says `from .flyingchairs import flying_chairs`,
  and the entry calls `datasets.flying_chairs(...)`;
* a registry: the entry calls `datasets.__dict__[args.dataset](...)`, one of the package's
  functions chosen at run time.

Here, once per program, from the drawing helpers every module's own reading found (by
absolute qualified name), the program's module-level imports (`module_bindings`, plain
`import a.b` too) and, for the modules that import a drawing helper, a walk of each
module-level function's calls in Python's ast (no libcst parse): a function that calls a
drawing helper of another module draws (its first such call in source order; a function
that runs `.backward()` is a training routine, whose draws get DP006 where they are, and is
not followed); a name a module binds by import to a drawing helper is one too
(`datasets.flying_chairs`); and `pkg.__dict__` names the first drawing function of the
module's namespace (by name), since a call through it may call any of them. The names are
told to every module with the other helpers (ProgramFacts.draws), so that
shared_draws/ wraps the statement that builds a dataset with such a call in `with
ddp_same_random():` and hazards/ gives DP006 where a training loop calls one.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import replace

from dp2ddp.facts import HelperDraw
from dp2ddp.program.discovery import Program, ProgramModule
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import dotted

#: Rounds of following chains and re-exports (a longer chain is not followed further).
_ROUNDS = 16
#: What a registry call reads: `pkg.__dict__[name](...)`.
_NAMESPACE = "__dict__"


def plain_imports(module: ProgramModule) -> dict[str, str]:
    """`import a.b` at module level binds `a` to the module `a` (module_bindings keeps
    only aliased imports)."""
    bound: dict[str, str] = {}
    for node in module.imports:
        if isinstance(node, ast.Import) and node.col_offset == 0:
            for alias in node.names:
                if alias.asname is None:
                    head = alias.name.split(".")[0]
                    bound[head] = head
    return bound


def _function_calls(
    module: ProgramModule, bound: Mapping[str, str]
) -> dict[str, list[tuple[str, bool]]]:
    """Each module-level function of `module` (not one that runs `.backward()`) with the
    absolute names of what it calls, in source order, each with whether the call is in a
    function or lambda the function defines inside itself (a closure it may return)."""
    own = {
        s.name for s in module.tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    calls: dict[str, list[tuple[str, bool]]] = {}
    for statement in module.tree.body:
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        found: list[tuple[int, int, str, bool]] = []
        training = False
        nested = {
            id(inner)
            for scope in ast_nodes.walk(statement)
            if scope is not statement
            and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            for inner in ast_nodes.walk(scope)
        }
        for node in ast_nodes.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            parts = dotted(node.func)
            if parts is None:
                continue
            if parts[-1] == "backward" and len(parts) > 1:
                training = True
                break
            head, rest = parts[0], parts[1:]
            if head in own and not rest:
                target = f"{module.name}.{head}"
            elif head in bound:
                target = ".".join([bound[head], *rest])
            else:
                continue
            found.append((node.lineno, node.col_offset, target, id(node) in nested))
        if not training:
            calls[statement.name] = [(t, inner) for _, _, t, inner in sorted(found)]
    return calls


def chained_draws(
    program: Program,
    draws: Mapping[str, HelperDraw],
    bindings: Callable[[ProgramModule], dict[str, str]],
) -> dict[str, HelperDraw]:
    """The drawing helpers `draws` (each module's own reading) leaves out: functions that
    reach a draw through another module, names bound by import to a drawing helper, and
    each module's `__dict__` where its namespace holds one (see the module docstring)."""
    names = dict(draws)
    if not names:
        return {}
    #: every dotted prefix of a drawing helper's name: the modules that hold one
    holders = {k.rsplit(".", i)[0] for k in names for i in range(1, k.count(".") + 1)}

    def add(key: str, draw: HelperDraw) -> None:
        names[key] = draw
        holders.update(key.rsplit(".", i)[0] for i in range(1, key.count(".") + 1))

    bound = {m.name: {**plain_imports(m), **bindings(m)} for m in program.modules}
    summaries: dict[str, dict[str, list[tuple[str, bool]]]] = {}
    for _ in range(_ROUNDS):
        changed = False
        for module in program.modules:
            imports = bound[module.name]
            for local, target in imports.items():
                key = f"{module.name}.{local}"
                if key not in names and target in names:
                    add(key, names[target])
                    changed = True
            if not any(t in names or t in holders for t in imports.values()):
                continue
            if module.name not in summaries:
                try:
                    summaries[module.name] = _function_calls(module, imports)
                except (SyntaxError, ValueError, RecursionError):
                    summaries[module.name] = {}
            for function, callees in summaries[module.name].items():
                key = f"{module.name}.{function}"
                if key in names:
                    continue
                first = next(((names[c], inner) for c, inner in callees if c in names), None)
                if first is not None:
                    draw, inner = first
                    add(key, replace(draw, helper=function, mixes=None, closure=inner))
                    changed = True
        if not changed:
            break
    in_program = {m.name for m in program.modules}
    by_module: dict[str, list[str]] = {}
    for key in names:
        by_module.setdefault(key.rpartition(".")[0], []).append(key)
    for module_name, keys in by_module.items():
        if module_name in in_program:
            names[f"{module_name}.{_NAMESPACE}"] = names[min(keys)]
    # The entry's own chains are told to no module when none imports it: entries sharing a
    # library then tell it the same facts, and it is migrated once (tests/test_project.py).
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
        if k not in draws and (imported or k.rpartition(".")[0] != entry)
    }
