"""The figures a ReduceLROnPlateau is stepped with (`scheduler.step(val_loss)`: the figure
decides when the rate drops). Asked by the rank_zero pass (rank_zero/decisions.py: a figure
computed from a per-process read) and by the data pass (data/attribute_figures.py: a figure
kept in an attribute object a training loop of another method feeds, stop 54 x4)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from dp2ddp.transforms._support.nodes import code_of, nodes_of

#: The scheduler that lowers the rate when the figure it is stepped with stops improving.
_PLATEAU = "torch.optim.lr_scheduler.ReduceLROnPlateau"


def plateau_steps(
    module: cst.Module, names: Callable[[cst.BaseExpression], set[str]]
) -> list[tuple[cst.Call, cst.BaseExpression]]:
    """Each `sched.step(figure)` (or `metrics=figure`) of a ReduceLROnPlateau the module
    builds (`sched = ReduceLROnPlateau(...)`, `self.sched = ...`; matched by the
    receiver's text), with the figure; `names`: an expression's qualified names."""
    built: set[str] = set()
    steps: list[cst.Call] = []
    for node in nodes_of(module, (cst.Assign, cst.Call)):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call):
            if _PLATEAU in names(node.value.func):
                built |= {code_of(t.target) for t in node.targets}
        elif not isinstance(node, cst.Call):
            continue
        elif _plateau_test(node, names):
            # `isinstance(self.lr_scheduler, ReduceLROnPlateau)`: a scheduler built in
            # another module and handed in (vpromise/2d-pose-pytorch@825aed0
            # utils/Trainer.py:152, stop 54 v2-C: stepped with this rank's epoch loss, no
            # DP090, the ranks' rates apart)
            built.add(code_of(node.args[0].value))
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "step":
            steps.append(node)
    found: list[tuple[cst.Call, cst.BaseExpression]] = []
    for call in steps:
        if code_of(call.func.value) not in built:  # type: ignore[attr-defined]
            continue
        figure = next(
            (
                a.value
                for a in call.args
                if (a.keyword is None and not a.star)
                or (a.keyword is not None and a.keyword.value == "metrics")
            ),
            None,
        )
        if figure is not None:
            found.append((call, figure))
    return found


def _plateau_test(call: cst.Call, names: Callable[[cst.BaseExpression], set[str]]) -> bool:
    """`isinstance(x, ReduceLROnPlateau)` (also in a tuple of classes): `x` is one where
    the test holds."""
    if not (isinstance(call.func, cst.Name) and call.func.value == "isinstance"):
        return False
    if len(call.args) != 2:
        return False
    classes = call.args[1].value
    options = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
    return any(_PLATEAU in names(option) for option in options)
