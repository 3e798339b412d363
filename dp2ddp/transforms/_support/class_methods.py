"""A class's methods as its instances resolve them: its own, then its bases' of the same
module, nearest first (Python's order for single inheritance), and the attributes that hold
one of them bound (`self.transform = self.train_transform`).

One home for what forward_calls (DP007's methods run by forward()) and dataset_draws (DP067's
per-sample methods) read: a method called on the instance may be defined by a base, or by a
subclass that overrides it, and an attribute set to a bound method is that method when called
(round 30, fangchangma/sparse-to-dense.pytorch@10efc6d: `__getitem__` of a base class calls
`self.transform(x)`, bound in `__init__` to `self.train_transform`, which each subclass
overrides with its random augmentation; no DP067 before).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from dp2ddp.transforms._support.nodes import walk


def methods_of(cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    """The methods `cls` defines that take the instance (not static or class methods)."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return {}
    return {
        m.name.value: m
        for m in cls.body.body
        if isinstance(m, cst.FunctionDef)
        and m.params.params
        and not any(
            isinstance(d.decorator, cst.Name)
            and d.decorator.value in ("staticmethod", "classmethod")
            for d in m.decorators
        )
    }


def base_chain(sub: cst.ClassDef, classes: dict[str, cst.ClassDef]) -> list[cst.ClassDef]:
    """`sub` and the classes of `classes` it derives from, nearest first (each class's first
    base named by a plain name there)."""
    chain = [sub]
    while True:
        bases = [b.value.value for b in chain[-1].bases if isinstance(b.value, cst.Name)]
        parent = next((classes[b] for b in bases if b in classes), None)
        if parent is None or parent in chain:
            return chain
        chain.append(parent)


def plain_bases(cls: cst.ClassDef, siblings: Sequence[cst.CSTNode]) -> bool:
    """`cls` derives from nothing but `object` and classes of `siblings` (its module's
    statements) that do too, with no metaclass: no nn.Module, so its forward() is no
    model's (round 35, Zhaoyi-Yan/Shift-Net_pytorch@a353431: `class ShiftNetModel(
    BaseModel)` with `class BaseModel():`, a trainer whose forward() stores the step's
    output, read as a model's, DP007)."""
    classes = {c.name.value: c for c in siblings if isinstance(c, cst.ClassDef)}
    seen: set[str] = set()
    todo = [cls]
    while todo:
        current = todo.pop()
        if current.keywords:
            return False
        for base in current.bases:
            name = base.value.value if isinstance(base.value, cst.Name) else None
            if name == "object":
                continue
            if name is None or name not in classes:
                return False
            if name not in seen:
                seen.add(name)
                todo.append(classes[name])
    return True


def resolved_methods(
    cls: cst.ClassDef, classes: dict[str, cst.ClassDef]
) -> dict[str, cst.FunctionDef]:
    """The instance methods of `cls` with those it inherits from `classes`: a name resolves
    to the nearest class defining it."""
    methods: dict[str, cst.FunctionDef] = {}
    for owner in reversed(base_chain(cls, classes)):
        methods.update(methods_of(owner))
    return methods


def bound_aliases(methods: dict[str, cst.FunctionDef]) -> dict[str, set[str]]:
    """attribute -> the methods of `methods` some method stores in it bound
    (`self.transform = self.train_transform`): calling the attribute calls one of them."""
    aliases: dict[str, set[str]] = {}

    def bound(value: cst.BaseExpression, own: str) -> list[str]:
        if isinstance(value, cst.IfExp):  # `self.train_aug if train else self.keep`
            return bound(value.body, own) + bound(value.orelse, own)
        if (
            isinstance(value, cst.Attribute)
            and isinstance(value.value, cst.Name)
            and value.value.value == own
            and value.attr.value in methods
        ):
            return [value.attr.value]
        return []

    for method in methods.values():
        own = method.params.params[0].name.value
        for node in walk(method.body):
            if not isinstance(node, cst.Assign) or not (held := bound(node.value, own)):
                continue
            for target in node.targets:
                stored = target.target
                if (
                    isinstance(stored, cst.Attribute)
                    and isinstance(stored.value, cst.Name)
                    and stored.value.value == own
                ):
                    aliases.setdefault(stored.attr.value, set()).update(held)
    return aliases
