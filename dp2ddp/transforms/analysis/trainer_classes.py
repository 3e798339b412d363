"""Classes of a library module that the program wraps itself: trainers (round 23 P4,
Andrewzh112/codebase@45892e2's avae: `trainer = DataParallel(AVAE_Trainer(...))` in main.py,
`trainer.module.fit(loader)`, the class in avae/model.py).

Such a class owns its nets and their optimizers and trains itself in a method, so called
through the wrap's `.module` (directly, or handed to a helper) DDP's forward never runs and
no gradient is averaged: each rank steps on its own shard and the ranks drift apart. In the
module that wraps, analysis/outside_parameters.py syncs the nets the class's optimizers take
(`ddp_sync_module(self.net)` after the optimizer's line in `__init__`); a library module
wraps nothing, so it planned nothing. Here the program's fact (ModelClass.wrapped, read from
every module's wraps: wrapped_classes.wrapped_directly) names the library's classes a
DataParallel of the program wraps, and the pass plans their optimizers as it plans those of
a module that wraps. Each sync is kept to those classes' own bodies: the rest of the
library is planned by its own wraps, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.names import DDP_WRAPS
from dp2ddp.transforms._support.nodes import name_of, walk
from dp2ddp.transforms.analysis.training import loop_trains

if TYPE_CHECKING:
    from dp2ddp.facts import ProgramFacts
    from dp2ddp.transforms._support.base import MigrationTransform

_HELPER = "ddp_sync_module"  # outside_parameters.HELPER (which imports this module)


def has_trainers(facts: ProgramFacts) -> bool:
    """A library module told that the program wraps one of its own classes itself: the
    model-wrap pass runs on it although it names no DataParallel."""
    return facts.role == "library" and any(m.wrapped and "." not in m.name for m in facts.models)


def wrapped_trainers(module: cst.Module, t: MigrationTransform) -> frozenset[int]:
    """Ids of this library module's top-level classes that a DataParallel of the program
    wraps itself (ModelClass.wrapped, told by their bare names); empty for a single file,
    the entry and a module that wraps (planned whole, as before)."""
    facts = t.state.facts
    if not has_trainers(facts):
        return frozenset()
    names = {m.name for m in facts.models if m.wrapped and "." not in m.name}
    return frozenset(
        id(node)
        for node in module.body
        if isinstance(node, cst.ClassDef)
        and node.name.value in names
        and not _synced(node)  # migrated before: its wrap is DDP's, the syncs in place
    )


def _synced(node: cst.ClassDef | cst.FunctionDef) -> bool:
    """The class (or function) calls ddp_sync_module already (a migration before this
    one)."""
    return any(
        isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == _HELPER
        for n in walk(node)
    )


def inside(node: cst.CSTNode, classes: frozenset[int], t: MigrationTransform) -> bool:
    """`node` stands in the body of one of `classes` (ids of class or function
    definitions)."""
    current: cst.CSTNode | None = node
    while current is not None:
        if id(current) in classes:
            return True
        current = t.parent(current)
    return False


def planned_part(
    module: cst.Module, t: MigrationTransform, wraps: bool
) -> Callable[[cst.CSTNode], bool] | None:
    """Which nodes of `module` outside_parameters.py plans syncs for: all where the module
    wraps (`wraps`), those in its trainers (`wrapped_trainers`) where it is a library that
    has some; None: none."""
    if wraps:
        return lambda node: True
    trainers = wrapped_trainers(module, t) | local_trainers(module, t)
    if not trainers:
        return None
    return lambda node: inside(node, trainers, t)


def may_train_locally(code: str, facts: ProgramFacts) -> bool:
    """A library module whose text may hold a local trainer (local_trainers): the
    model-wrap pass runs on it although it names no DataParallel."""
    return (
        facts.role == "library"
        and ".parameters()" in code
        and ".backward(" in code
        and ".step(" in code
    )


def local_trainers(module: cst.Module, t: MigrationTransform) -> frozenset[int]:
    """Ids of this library module's top-level functions that build a model of their own
    (`probe = nn.Linear(16, 4)`: a name the function binds to a construction only), hand
    its `.parameters()` to an optimizer built there, and train in a loop of their own
    (round 30, dewenzeng/ssl_benchmarks_small@e230fc8's linear-probe evaluation:
    `linear_eval.eval()` trained a fresh classifier on frozen features, its training loader
    sharded by the data pass, nothing syncing the classifier: each rank its own probe on
    its share, the reported accuracy rank 0's, unsaid). The pass syncs that model
    (ddp_sync_module) as it does one beside a wrap; an entry or a single file is the
    module that wraps, planned whole."""
    if t.state.facts.role != "library":
        return frozenset()
    wraps = {"DataParallel", *DDP_WRAPS}
    if any(isinstance(n, cst.Call) and name_of(n.func) in wraps for n in walk(module)):
        return frozenset()  # a module that wraps (or was migrated): planned as such
    found: set[int] = set()
    for node in module.body:
        if not isinstance(node, cst.FunctionDef) or _synced(node):
            continue
        built = {
            target.target.value
            for statement in walk(node.body, skip_scopes=True)
            if isinstance(statement, cst.Assign)
            and isinstance(statement.value, cst.Call)
            and name_of(statement.value.func)[:1].isupper()
            for target in statement.targets
            if isinstance(target.target, cst.Name)
        }
        handed = {
            name_of(call.func.value)
            for call in walk(node.body, skip_scopes=True)
            if isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "parameters"
            and isinstance(call.func.value, cst.Name)
        }
        trains = any(
            isinstance(loop, (cst.For, cst.While)) and loop_trains(loop, t.qualified_names)
            for loop in walk(node.body, skip_scopes=True)
        )
        if built & handed and trains:
            found.add(id(node))
    return frozenset(found)
