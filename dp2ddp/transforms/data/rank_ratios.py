"""A printed figure of this rank's batch divided by the loader's global batch size: per rank.

ne7ermore/torch-light@facd5e1 BERT/train.py:87 (stop 54, v1-B): in the training loop over a
loader built with `batch_size=args.batch_size`, `s_corrects = (torch.max(sent, 1)[1].data ==
sent_label.data).sum()` counts the right predictions among the wrapped model's outputs, and
the step's print shows `float(s_corrects)/args.batch_size*100` as an accuracy. Under
DataParallel the outputs were the whole batch's; migrated, they are this rank's
ddp_per_rank_batch(B) rows, and the print divides that share's count by B: rank 0 shows at
most 1/WORLD_SIZE of the accuracy, nothing said.

Proved on the def-use view: a division in a training loop whose value is printed (it is
inside the arguments of `print`, `ddp_print` or a logger's `info`/`debug`/`warning`/`write`)
where the divisor is the global batch size of a loader this pass shards (handed_sizes'
_same_size: the sources of its `batch_size=`, an attribute the same attribute; or the same
attribute of the same, never rebound, name in the loader's function, no statement of the
module storing that attribute: flow.origins takes any `args.x = v` as a store into `args`,
so torch-light's `args.vsz = ...` between the loader and the print hides it) and the
dividend is a total over rows (through `float()`, `int()`, `.item()`: a `.sum()`, `.numel()`
or `count_nonzero` with no dim, or a name the loop assigns once from one) that comes
(flow.origins) from an output of the wrapped model or a part of such a loader (this rank's
batch). A mean (`loss.item() / B`) is not a total: its scale is the rank's as the original's,
left as written. The divisor is read per rank, `ddp_per_rank_batch(B)`: the figure
is rank 0's own step's, as its printed loss is. A division whose value feeds anything else
(a loss, a tensor, a count kept across steps) is left to the other rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    call_named,
    calls_model,
    enclosing_function,
    name_of,
    target_names,
    walk,
)
from dp2ddp.transforms.analysis.chunk_sizes import ChunkPlan
from dp2ddp.transforms.analysis.training import loop_trains
from dp2ddp.transforms.data.handed_sizes import _same_size, rank_share
from dp2ddp.transforms.data.handoffs import global_batch_size
from dp2ddp.transforms.data.size_guards import PER_RANK

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders

#: calls whose arguments are printed
_PRINTS = frozenset({"print", "ddp_print"})
_LOGS = frozenset({"info", "debug", "warning", "write"})


def plan_rank_ratios(data: ShardDataLoaders, nodes: ModuleNodes, plan: ChunkPlan) -> None:
    """Add to `plan` the global batch sizes that divide a printed figure of this rank's
    batch in a training loop (swaps, records)."""
    sharded = {c: g for c in data._edits if (g := global_batch_size(data, c)) is not None}
    if not sharded:
        return
    flow = None
    wrapped = set(data.state.wrapped)

    def stop(other: cst.Call) -> bool:
        return calls_model(other, wrapped)

    for division in nodes.of(cst.BinaryOperation):
        size = division.right
        if (
            not isinstance(division.operator, cst.Divide)
            or not isinstance(size, (cst.Name, cst.Attribute))
            or size in plan.swaps
            or not _total(division.left, division, data)
            or not _printed(division, data)
            or not _in_training_loop(division, data)
        ):
            continue
        flow = flow or view(data._module_node)
        loader = next((c for c, b in sharded.items() if _global(size, b, c, flow, data)), None)
        if loader is None:
            continue
        what = rank_share(flow, division.left, stop, sharded)
        if what is None:
            continue
        plan.swaps[size] = call_named(PER_RANK, cst.Arg(size.deep_clone()))
        plan.records.append(
            (
                size,
                f"{data.code(size)} is the global batch_size of the DataLoader at line "
                f"{data.line_of(loader)}, dividing the printed `{data.code(division.left)}`, "
                f"a figure of {what}: this rank's ddp_per_rank_batch({data.code(size)}) "
                "rows, per rank",
            )
        )


def _printed(node: cst.CSTNode, data: ShardDataLoaders) -> bool:
    """`node` is inside the arguments of a print or a logger's call, in its statement."""
    while (parent := data.parent(node)) is not None and not isinstance(
        parent, (cst.SimpleStatementLine, cst.BaseCompoundStatement)
    ):
        if isinstance(parent, cst.Call) and node is not parent.func:
            func = parent.func
            if name_of(func) in _PRINTS or (
                isinstance(func, cst.Attribute) and func.attr.value in _LOGS
            ):
                return True
        node = parent
    return False


def _in_training_loop(node: cst.CSTNode, data: ShardDataLoaders) -> bool:
    """The nearest loop around `node` in its function trains."""
    around = data.parent(node)
    while around is not None and not isinstance(around, (cst.FunctionDef, cst.Lambda)):
        if isinstance(around, (cst.For, cst.While)):
            return loop_trains(around, data.qualified_names)
        around = data.parent(around)
    return False


def _global(
    size: cst.Name | cst.Attribute,
    batch_size: cst.BaseExpression,
    loader: cst.Call,
    flow: DefUse,
    data: ShardDataLoaders,
) -> bool:
    """`size` is the loader's global batch size (see the module docstring)."""
    if _same_size(size, batch_size, flow):
        return True
    if not (
        isinstance(size, cst.Attribute)
        and isinstance(size.value, cst.Name)
        and isinstance(batch_size, cst.Attribute)
        and data.code(size) == data.code(batch_size)
    ):
        return False
    function = enclosing_function(size, data)
    if function is None or enclosing_function(loader, data) is not function:
        return False
    owner, attr = size.value.value, size.attr.value
    for node in walk(data._module_node):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)):
            targets = [node.target]
        for target in targets:
            stored = [t for t in walk(target) if isinstance(t, cst.Attribute)]
            if any(t.attr.value == attr for t in stored):
                return False  # the attribute is stored somewhere
            if owner in target_names(target) and enclosing_function(node, data) is function:
                return False  # the name is rebound in the function
    return True


_TOTALS = frozenset({"sum", "numel", "count_nonzero"})


def _total(value: cst.BaseExpression, at: cst.CSTNode, data: ShardDataLoaders) -> bool:
    """`value` is a total over rows (see the module docstring), a name through the one
    assignment to it in the loop around `at`."""
    while isinstance(value, cst.Call):
        func = value.func
        method = func.attr.value if isinstance(func, cst.Attribute) else ""
        if method in ("item", "float", "int", "long") and not value.args:
            value = func.value  # type: ignore[attr-defined]
        elif name_of(func) in ("float", "int") and len(value.args) == 1:
            value = value.args[0].value
        else:
            return (method in _TOTALS and not value.args) or (
                name_of(func) in _TOTALS and len(value.args) == 1
            )
    if not isinstance(value, cst.Name):
        return False
    loop = data.parent(at)
    while loop is not None and not isinstance(loop, (cst.For, cst.While)):
        loop = data.parent(loop)
    if loop is None:
        return False
    bound = [
        node
        for node in walk(loop.body, skip_scopes=True)
        if isinstance(node, cst.Assign)
        and any(value.value in target_names(t.target) for t in node.targets)
    ]
    return (
        len(bound) == 1
        and len(bound[0].targets) == 1
        and isinstance(bound[0].targets[0].target, cst.Name)
        and _total(bound[0].value, at, data)
    )
