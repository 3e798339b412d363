"""Two wraps of one model that are not a nested wrap (DP022) or an owner's wrap (DP042).

model_wrap.py tells this collaborator each wrap and each assignment in source order, and
asks, for a pair of wraps, whether they are apart:

* exclusive: they sit in different branches of one if/else and never both run
  (ShichenLiu/CondenseNet: `model.features` wrapped for AlexNet/VGG, `model` else);
* separated: an unwrap of a name both wrap targets are (or are under) lies between them
  (`model = model.module`, `model = model.cpu().module`, `model.module.cpu()`):
  CondenseNet's conversion takes the wrapper off before `model = nn.DataParallel(model)`
  wraps the bare model again. Had `model.features` been wrapped alone, `model.module` would
  not exist; had both been, the pair before the unwrap is warned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import scoped_name, unmoved

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform


class WrapPairs:
    """Asked by the model-wrap pass `t`."""

    def __init__(self, t: MigrationTransform) -> None:
        self.t = t
        #: Source order of the wraps and the unwraps, by id.
        self._order: dict[int, int] = {}
        #: Each unwrap: (the name taken off its wrapper, scoped; its order).
        self._unwraps: list[tuple[tuple[int, str], int]] = []

    def note_wrap(self, call: cst.Call) -> None:
        self._order[id(call)] = len(self._order)

    def note_assign(self, node: cst.Assign) -> None:
        """`model = model.module` (through moves on either side) is an unwrap of `model`."""
        if len(node.targets) != 1:
            return
        target = self.t.code(node.targets[0].target)
        value = unmoved(node.value)
        if not (isinstance(value, cst.Attribute) and value.attr.value == "module"):
            return
        if self.t.code(unmoved(value.value)) == target:
            self._unwraps.append((scoped_name(node, target, self.t), len(self._order)))
            self._order[id(node)] = len(self._order)

    def apart(self, first: cst.Call, second: cst.Call, targets: tuple[str, str]) -> bool:
        return self._exclusive(first, second) or self._separated(first, second, targets)

    def _separated(self, first: cst.Call, second: cst.Call, targets: tuple[str, str]) -> bool:
        low, high = sorted((self._order.get(id(first), -1), self._order.get(id(second), -1)))
        for (scope, name), at in self._unwraps:
            if not low < at < high:
                continue
            if all(t == name or t.startswith(name + ".") for t in targets) and all(
                scoped_name(call, name, self.t)[0] == scope for call in (first, second)
            ):
                return True
        return False

    def _exclusive(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        """The two nodes sit in different branches of one if/else."""
        branches: dict[int, cst.CSTNode] = {}
        child, node = first, self.t.parent(first)
        while node is not None:
            if isinstance(node, cst.If):
                branches[id(node)] = child
            child, node = node, self.t.parent(node)
        child, node = second, self.t.parent(second)
        while node is not None:
            if isinstance(node, cst.If) and id(node) in branches:
                mine, theirs = child, branches[id(node)]
                return mine is not theirs and {id(mine), id(theirs)} == {
                    id(node.body),
                    id(node.orelse),
                }
            child, node = node, self.t.parent(node)
        return False
