"""What decides a learning rate the ranks share (issue 29: "a value one rank computes
alone that decides something shared").

Under DataParallel one process set the optimizer's learning rate; migrated, every rank
sets its own. DDP averages gradients, not learning rates: a rank that halved its rate where
another did not takes other steps, and the ranks' weights part from then on, silently (T3,
stop 31: a whole evaluation on every rank, in an order each process drew unseeded, set the
rate with `if val_loss > best: lr /= 2; for g in optimizer.param_groups: g["lr"] = lr`).

`rate_sets` finds the writes of a parameter group's rate (`g["lr"] = ...` with `g` iterated
over `*.param_groups`, `opt.param_groups[0]["lr"] = ...`); `plateau_steps`
(analysis/plateau_steps.py) the figures a ReduceLROnPlateau is stepped with
(`scheduler.step(val_loss)`: the figure decides when the rate drops); `deciding_tests`
the `if` tests that decide the writes: an `if` holding such a write, or a binding of the
name one writes. The rank_zero pass follows what those tests, written values and figures
are computed from back to the per-process reads (analysis/per_process.py) and makes the
figure rank 0's value (rank_zero/run_dir.py).
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import NodeView, code_of, enclosing_function, nodes_of, walk


def _rate_key(node: cst.BaseExpression) -> bool:
    """`x["lr"]`: a subscript by the one string "lr"."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    return (
        isinstance(index, cst.Index)
        and isinstance(index.value, cst.SimpleString)
        and index.value.evaluated_value == "lr"
    )


def _is_group(view: NodeView, group: cst.BaseExpression, site: cst.CSTNode) -> bool:
    """`group` is a parameter group: `opt.param_groups[i]`, or a name a `for` around
    `site` iterates over `*.param_groups` (by text)."""
    if isinstance(group, cst.Subscript):
        return code_of(group.value).endswith("param_groups")
    if not isinstance(group, cst.Name):
        return False
    parent = view.parent(site)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Module)):
        if (
            isinstance(parent, cst.For)
            and isinstance(parent.target, cst.Name)
            and parent.target.value == group.value
        ):
            return code_of(parent.iter).endswith("param_groups")
        parent = view.parent(parent)
    return False


def rate_sets(view: NodeView, module: cst.Module) -> list[cst.Assign | cst.AugAssign]:
    """Every write of a parameter group's learning rate in `module`, in its text's order."""
    found: list[cst.Assign | cst.AugAssign] = []
    for node in nodes_of(module, (cst.Assign, cst.AugAssign)):
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, cst.AugAssign):
            targets = [node.target]
        else:
            continue
        if any(
            _rate_key(t) and _is_group(view, t.value, node)  # type: ignore[attr-defined]
            for t in targets
        ):
            found.append(node)
    return found


def _binds(statement: cst.CSTNode, names: set[str]) -> bool:
    """`statement` binds one of `names` (`lr /= 2`, `lr = lr * 0.5`), its own scope only."""
    for node in walk(statement, skip_scopes=True):
        if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            if node.target.value in names:
                return True
        if isinstance(node, cst.Assign) and any(
            isinstance(t.target, cst.Name) and t.target.value in names for t in node.targets
        ):
            return True
    return False


def deciding_tests(
    view: NodeView, module: cst.Module, sets: list[cst.Assign | cst.AugAssign]
) -> list[tuple[cst.If, cst.Assign | cst.AugAssign]]:
    """The `if` statements that decide a learning rate, each with the write it decides:
    one around the write, or one binding (in either branch) the name a write of its
    function reads (`lr` of `g["lr"] = lr`)."""
    found: dict[int, tuple[cst.If, cst.Assign | cst.AugAssign]] = {}
    for write in sets:
        parent = view.parent(write)
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Module)):
            if isinstance(parent, cst.If):
                found.setdefault(id(parent), (parent, write))
            parent = view.parent(parent)
        value = write.value
        if not isinstance(value, cst.Name):
            continue
        scope = enclosing_function(write, view) or module
        for statement in walk(scope, skip_scopes=scope is not module):
            if isinstance(statement, cst.If) and _binds(statement, {value.value}):
                found.setdefault(id(statement), (statement, write))
    return list(found.values())
