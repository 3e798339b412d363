"""A file migrated alone: its own nn.Module classes as the program's facts hold them.

`program/told.py` reads every module's classes once for a program (`ProgramTeller.models`);
a single file has no program, and DP041 and the parameter-free wrap (analysis/
wrapped_model.py) still need the same facts of its own classes. Both readings build
`ModelClass` from the same parts (partial_forward, dropped_outputs, bare_modules,
class_reach), so a rule added to one is read the same way by the other.
"""

from __future__ import annotations

import ast

from dp2ddp.facts import ModelClass
from dp2ddp.transforms.analysis import class_reach
from dp2ddp.transforms.analysis.bare_modules import bare_classes, empty_classes
from dp2ddp.transforms.analysis.dropped_outputs import resolve_several
from dp2ddp.transforms.analysis.norm_layers import norm_classes
from dp2ddp.transforms.analysis.part_wraps import partly_wrapped
from dp2ddp.transforms.analysis.partial_forward import module_classes, partial_models


def own_model_classes(source: str, tree: ast.Module) -> tuple[ModelClass, ...]:
    """The classes of `source` (parsed as `tree`) by their bare names, as told.models
    gives a program's: layers called from outside their class spared, the classes the
    file never builds marked, those that may hold no parameter marked bare."""
    reach = [("", class_reach.module_reach("", tree))]
    called = class_reach.called_attributes(r for _, r in reach)
    classes = class_reach.spare_called(module_classes("", "", source), called)
    built = class_reach.built_classes(reach)
    bare = bare_classes("", source)
    uses = partial_models(classes, empty_classes("", source))
    several = resolve_several({name: facts.several for name, facts in classes.items()})
    children = {name: facts.children for name, facts in classes.items()}
    part_wraps = partly_wrapped(
        {name: facts.held_wrap for name, facts in classes.items()}, children
    )
    norms = norm_classes({name: facts.norms for name, facts in classes.items()}, children)
    return tuple(
        ModelClass(
            name,
            uses[name].describe() if name in uses else "",
            facts.outputs,
            facts.pairs,
            several=several[name],
            cuts=facts.cuts,
            bare=name in bare,
            built=built is None or name in built,
            part_wrap=part_wraps.get(name, ""),
            norms=name in norms,
        )
        for name, facts in classes.items()
    )
