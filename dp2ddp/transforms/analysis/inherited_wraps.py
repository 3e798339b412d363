"""Wraps a base class of another module stores in its object: its subclasses' methods call
them as `self.generator(x)`.

A trainer base class wraps the models it is built with (`self.generator =
DataParallel(generator)` in `BaseTrainer.__init__`, base_trainer.py) and a subclass in
another module runs the steps (`fake = self.generator(x)` ... `loss.backward()` twice). The
subclass's module binds no wrap, so the passes that follow a wrap's forwards through
`self.generator` (DP026's second backward) saw none there (round 34,
fourson/DeblurGAN-pytorch@41696fc trainer/trainer.py: the discriminator's loss reached the
generator, then the generator's own loss backwarded through the same forward, unsynced, and
the generator's weights drifted apart across the ranks with no warning). Each module says
which of its top-level classes store a wrap in which attribute (`Class.attr`, one ast walk,
program_hints.ModuleNames); a module whose class names such a class as a base reads
`self.attr` as wrapped (ProgramHints.wrapped_attributes).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import libcst as cst

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.names import DATAPARALLEL


def wrapping_attributes(tree: ast.Module, resolved: Callable[[ast.expr], str]) -> frozenset[str]:
    """`Class.attr` for each top-level class of the module that assigns `self.attr` a
    DataParallel wrap (through `.cuda()` / `.to()`) in one of its methods."""
    found: set[str] = set()
    for owner in tree.body:
        if not isinstance(owner, ast.ClassDef):
            continue
        for method in owner.body:
            if not isinstance(method, ast.FunctionDef) or not method.args.args:
                continue
            own = method.args.args[0].arg
            for node in ast_nodes.walk(method):
                if not isinstance(node, ast.Assign) or not _wraps(node.value, resolved):
                    continue
                for target in node.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == own
                    ):
                        found.add(f"{owner.name}.{target.attr}")
    return frozenset(found)


def _wraps(value: ast.expr, resolved: Callable[[ast.expr], str]) -> bool:
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in ("cuda", "to")
    ):
        value = value.func.value
    return isinstance(value, ast.Call) and resolved(value.func) in DATAPARALLEL


def inherited_wraps(module: cst.Module, told: frozenset[str]) -> set[str]:
    """`self.attr` (as its methods spell it: their first parameter) for each attribute a
    base class of another module wraps (`told`: ProgramHints.wrapped_attributes), in the
    methods of this module's top-level classes naming that base (`class Trainer(BaseTrainer)`,
    `base.BaseTrainer`)."""
    found: set[str] = set()
    if not told:
        return found
    held: dict[str, set[str]] = {}
    for entry in told:
        cls, _, attr = entry.rpartition(".")
        held.setdefault(cls, set()).add(attr)
    for owner in module.body:
        if not isinstance(owner, cst.ClassDef) or not isinstance(owner.body, cst.IndentedBlock):
            continue
        attrs = set().union(*(held.get(_base_name(b.value), set()) for b in owner.bases))
        for method in owner.body.body:
            if attrs and isinstance(method, cst.FunctionDef) and method.params.params:
                own = method.params.params[0].name.value
                found.update(f"{own}.{attr}" for attr in attrs)
    return found


def _base_name(base: cst.BaseExpression) -> str:
    if isinstance(base, cst.Name):
        return base.value
    return base.attr.value if isinstance(base, cst.Attribute) else ""
