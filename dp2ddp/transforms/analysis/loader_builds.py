"""Where a module builds DataLoaders, read with `ast` once per module for the program hints
(ProgramHints.loader_batch_attributes, builds_loaders; moved whole out of program_hints.py
at stop 48)."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import dotted


def loader_calls(tree: ast.Module) -> tuple[frozenset[str], frozenset[str]]:
    """The attribute names a DataLoader (or a subclass named `...DataLoader`) of the module
    takes its batch_size from: `DataLoader(data, batch_size=opt.batch_size)` -> batch_size;
    and the loader classes it calls, by last name, with "-Name" for each DataLoader
    subclass it defines that the data pass leaves whole (`whole_subclasses`): the program
    shards a loader only where some module calls one of the others (`shards_loaders`,
    ProgramHints.builds_loaders). A batch's size compared with such an attribute in another
    module (a model object's `is_train()`: `self.real_A.size(0) == self.opt.batch_size`)
    may compare the per-rank batch with the global size (data/size_guards.py, DP061)."""
    found: set[str] = set()
    called: set[str] = set()
    for node in ast_nodes.listed(tree):  # the module's one listing
        parts = dotted(node.func) if isinstance(node, ast.Call) else None
        if isinstance(node, ast.Call) and parts and parts[-1].endswith("DataLoader"):
            called.add(parts[-1])
            for keyword in node.keywords:
                if keyword.arg == "batch_size" and isinstance(keyword.value, ast.Attribute):
                    found.add(keyword.value.attr)
    called |= {f"-{name}" for name in whole_subclasses(tree)}
    return frozenset(found), frozenset(called)


def whole_subclasses(tree: ast.Module) -> set[str]:
    """The module's classes deriving from a `...DataLoader` that hand their base no sampler
    of their own (`super().__init__(*args, **kwargs)`: kaituoxu/Conv-TasNet's
    AudioDataLoader): the data pass shards no call of one (program/loader_subclasses.py,
    DP035), while one passing `sampler=` / `batch_sampler=` has that sampler sharded
    (data/batch_shard.py), as one already passing `**ddp_loader_arguments(...)` was."""
    found: set[str] = set()
    for node in ast_nodes.listed(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [dotted(b) for b in node.bases]
        if not any(b and b[-1].endswith("DataLoader") for b in bases):
            continue
        own = any(
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "__init__"
            and (
                any(k.arg in ("sampler", "batch_sampler") for k in call.keywords)
                or any(_run_time(k.value) for k in call.keywords if k.arg is None)
                or sum(not isinstance(a, ast.Starred) for a in call.args) > 3  # a sampler's place
            )
            for call in ast.walk(node)
        )
        if not own:
            found.add(node.name)
    return found


def flagged_subclasses(tree: ast.Module) -> set[str]:
    """The module's classes deriving from a `...DataLoader` whose `__init__` itself hands
    `super().__init__` its arguments with `**`, or a `sampler=` / `batch_sampler=` that is
    one of its parameters: the data pass shards them at run time (`**ddp_loader_arguments`,
    data/batch_shard.py) and gives `__init__` the `ddp_shard=True` keyword an evaluation
    instance of another module passes False to (data/subclass_instances.py). The callers
    leave out a class named as an evaluation loader (left whole, DP009: data.plan.EVAL_NAME)."""
    found: set[str] = set()
    for node in ast_nodes.listed(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        if not any((b := dotted(base)) and b[-1].endswith("DataLoader") for base in node.bases):
            continue
        init = next(
            (f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"),
            None,
        )
        if init is None:
            continue
        params = {a.arg for a in (*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs)}
        for call in ast.walk(init):
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "__init__"
                and isinstance(call.func.value, ast.Call)
                and dotted(call.func.value.func) == ["super"]
            ):
                continue
            own = [k for k in call.keywords if k.arg in ("sampler", "batch_sampler")]
            starred = any(k.arg is None for k in call.keywords)
            if (own or starred) and (
                starred or any(isinstance(k.value, ast.Name) and k.value.id in params for k in own)
            ):
                found.add(node.name)
    return found


def _run_time(value: ast.expr) -> bool:
    """`**ddp_loader_arguments(...)`: a subclass the data pass sharded (a second run)."""
    parts = dotted(value.func) if isinstance(value, ast.Call) else None
    return parts is not None and bool(parts) and parts[-1] == "ddp_loader_arguments"


def shards_loaders(called: Iterable[frozenset[str]]) -> bool:
    """Some module calls a loader class the data pass may shard: torch's DataLoader, a class
    so named, a subclass passing its own sampler; not only the program's subclasses it
    leaves whole (`loader_calls`). Where none, every loader of the program is whole on
    every rank, and so is a loop over one this module does not see built (stop 72, round
    24: FaSNet-TAC's Solver, handed AudioDataLoaders in a dict, was said to print this
    rank's share, DP030, beside DP035's whole loader)."""
    names = frozenset().union(*called)
    return any(not n.startswith("-") and f"-{n}" not in names for n in names)
