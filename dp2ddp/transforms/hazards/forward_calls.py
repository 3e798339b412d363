"""The methods a module's forward() runs on itself, for DP007: state they change is changed in
forward() as much as state forward() changes itself.

`self.helper(x)` in forward() resolves on the instance: in the class that defines forward(),
and in every subclass of it that inherits that forward() (Python's method order, the
subclass's own methods first). 666DZY666/micronet@c31cdd2 (stop 50, v3-A): `ObserverBase`
defines forward(), which calls `self.update_range(...)`; `MinMaxObserver` and
`MovingAverageMinMaxObserver` define only update_range(), whose `self.num_flag += 1`
DataParallel dropped on its replicas (the observer stayed in first-batch mode) while each DDP
process keeps it. Subclasses in the same module or block as the base are followed; a
subclass in another module is not seen.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from dp2ddp.transforms._support.class_methods import base_chain, methods_of
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms._support.visiting import read_tree
from dp2ddp.transforms.hazards.scopes import SelfMutations


def _called(forward: cst.FunctionDef, methods: dict[str, cst.FunctionDef]) -> list[cst.FunctionDef]:
    """The methods of `methods` that `forward` calls on itself, and those they call, in the
    order found."""
    found: list[cst.FunctionDef] = []
    queue = [forward]
    while queue:
        function = queue.pop(0)
        own = function.params.params[0].name.value
        for node in walk(function.body):
            if not (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name)
                and node.func.value.value == own
            ):
                continue
            method = methods.get(node.func.attr.value)
            if method is not None and method is not forward and method not in found:
                found.append(method)
                queue.append(method)
    return found


def forward_helpers(cls: cst.ClassDef, forward: cst.FunctionDef) -> list[cst.FunctionDef]:
    """The methods of `cls` that its forward() calls on itself (`self.initialize_parameters(x)`),
    and those they call (glow's ActNorm initialises its bias and scale from the first batch in
    such a method, stop 31 class G2)."""
    return _called(forward, methods_of(cls))


def inherited_helpers(
    cls: cst.ClassDef, forward: cst.FunctionDef, siblings: Sequence[cst.CSTNode]
) -> list[tuple[cst.ClassDef, cst.FunctionDef, cst.ClassDef]]:
    """(subclass, method, the class defining it) for the methods of subclasses of `cls` among
    `siblings` that the forward() they inherit from `cls` calls on the instance: resolved in
    the subclass first, as Python does. Methods `cls` defines itself are forward_helpers'."""
    classes = {c.name.value: c for c in siblings if isinstance(c, cst.ClassDef)}
    found: list[tuple[cst.ClassDef, cst.FunctionDef, cst.ClassDef]] = []
    seen: set[int] = {id(m) for m in methods_of(cls).values()}
    for sub in classes.values():
        chain = base_chain(sub, classes)
        if sub is cls or cls not in chain:
            continue
        below = chain[: chain.index(cls)]
        if any("forward" in methods_of(c) for c in below):
            continue  # forward() is overridden on the way down: not this one
        methods: dict[str, cst.FunctionDef] = {}
        owner: dict[int, cst.ClassDef] = {}
        for c in reversed(chain[: chain.index(cls) + 1]):
            for name, method in methods_of(c).items():
                methods[name] = method
                owner[id(method)] = c
        for method in _called(forward, methods):
            if id(method) not in seen:
                seen.add(id(method))
                found.append((sub, method, owner[id(method)]))
    return found


def helper_changes(
    cls: cst.ClassDef, forward: cst.FunctionDef, siblings: Sequence[cst.CSTNode]
) -> list[tuple[cst.CSTNode, cst.CSTNode, str]]:
    """(where, what, whose) for each change of the instance's state in a method forward()
    runs on itself, its own or a subclass's (DP007's detail)."""
    base = cls.name.value
    runs = [
        (m, f"{base}.{m.name.value}(), which {base}.forward() calls")
        for m in forward_helpers(cls, forward)
    ]
    for sub, method, owner in inherited_helpers(cls, forward, siblings):
        name = f"{owner.name.value}.{method.name.value}()"
        runs.append(
            (method, f"{name}, which {base}.forward(), inherited by {sub.name.value}, calls")
        )
    changes: list[tuple[cst.CSTNode, cst.CSTNode, str]] = []
    for method, whose in runs:
        mutations = SelfMutations(method.params.params[0].name.value)
        read_tree(method.body, mutations)
        changes.extend((where, what, whose) for where, what in mutations.found)
    return changes
