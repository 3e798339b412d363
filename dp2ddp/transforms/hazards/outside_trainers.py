"""A wrapped model of a class dp2ddp cannot edit that trains itself through `.module`
(DP223; round 23 P4, Andrewzh112/codebase@45892e2's avae: `trainer =
DataParallel(AVAE_Trainer(...))`, `trainer.module.fit(loader)`).

A trainer class owns its nets and optimizers and trains itself in a method; called through
the wrap's `.module`, DDP's forward never runs and no gradient is averaged over the ranks:
each rank steps on its own shard and the ranks drift apart. Where the class is the
program's, its module gets `ddp_sync_module` after each optimizer over its nets
(analysis/trainer_classes.py, outside_parameters.py), in the module that wraps as in
another. Where it is not (an installed package's class, nothing dp2ddp migrates), nothing
can be placed in it: said here.

Found: `W.module.m(...)` in a module that wraps W, where every binding of W constructs (or
wraps what constructs) a class neither this module nor the program defines and not torch's,
`m` is none of nn.Module's or DDP's own methods, no call of W itself runs the wrapper's
forward in the module, and the call is not in a step that backpropagates (DP108 says those).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import name_of, unmoved
from dp2ddp.transforms.analysis.own_methods import MODULE_API

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform
    from dp2ddp.transforms._support.nodes import ModuleNodes

_WRAPS = frozenset({"DataParallel", "DistributedDataParallel"})
_OWN = frozenset({"forward", "no_sync", "join", "register_comm_hook"})


def outside_trainer_calls(
    nodes: ModuleNodes, wrapped: set[str], t: MigrationTransform, module: cst.Module
) -> Iterator[tuple[cst.Call, str]]:
    """(call, detail) for each `W.module.m(...)` of the module docstring."""
    calls = nodes.of(cst.Call)
    forwards = {t.code(c.func) for c in calls}
    own = {c.name.value for c in nodes.of(cst.ClassDef)}
    for call in calls:
        func = call.func
        if not (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Attribute)
            and func.value.attr.value == "module"
            and isinstance(func.value.value, cst.Name)
        ):
            continue
        model, method = func.value.value, func.attr.value
        if model.value not in wrapped or model.value in forwards:
            continue
        if method in MODULE_API or method in _OWN or method.startswith("_"):
            continue
        classes = _classes(model, t, module)
        if not classes or any(_editable(c, own, t) for c in classes):
            continue
        yield (
            call,
            f"`{t.code(call)}`: {model.value} wraps {', '.join(sorted(classes))}, a class "
            "dp2ddp does not migrate, so no ddp_sync_module could be placed in it",
        )


def _classes(model: cst.Name, t: MigrationTransform, module: cst.Module) -> set[str]:
    """The qualified names of the classes every binding of `model` constructs, through its
    wraps (`W = DataParallel(W)`: W's other bindings); empty where one is not a call."""
    found: set[str] = set()
    for definition in view(module).definitions(model):
        value = unmoved(definition.value) if definition.value is not None else None
        if isinstance(value, cst.Call) and name_of(value.func) in _WRAPS:
            first = next((a.value for a in value.args if a.keyword is None), None)
            value = unmoved(first) if first is not None else None
            if isinstance(value, cst.Name) and value.value == model.value:
                continue
        if not isinstance(value, cst.Call):
            return set()
        names = {q for q in t.qualified_names(value.func) if "<" not in q}
        if not names:
            return set()
        found |= names
    return found


def _editable(name: str, own: set[str], t: MigrationTransform) -> bool:
    """A class dp2ddp migrates (this module's, or one the program's facts name: a model
    class, a top-level class of another module), or torch's."""
    if name.startswith(("torch.", "builtins.")):
        return True
    if name.startswith("__main__.") or "." not in name:
        return name.rpartition(".")[2] in own
    if any(m.name == name for m in t.state.facts.models):
        return True
    return any(c == name or c.startswith(f"{name}.") for c, _ in t.state.loaders.consumers)
