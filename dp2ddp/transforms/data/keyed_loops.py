"""Loops over a loader reached through a dict by a literal key (`state["loader"]`).

Round 36, wvinzh/WS_DAN_PyTorch@cbf7ff5: the entry keeps its loader, model, optimizer and
class-centre table in one dict, `state = {"loader": loader, "center": centers, ...}`, and an
epoch function iterates `state["loader"]`. The data pass's own resolution does not take an
item of a dict by its key, so that loop was no loop of the loader: the centre table it
updates at the batch's labels (DP028) and its running figures (DP030) went unsaid. The
module's def-use view does (flow/origins.py: a literal key takes that item of a dict
literal): each such loop whose iterable comes from a loader of this module is one of the
loader's `read_loops` (figures, tables; its set_epoch is not planned there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, origins, view
from dp2ddp.flow.elements import literal_key
from dp2ddp.transforms._support.nodes import iterated, nodes_of
from dp2ddp.transforms.data.plan import Loader

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders


def register_keyed_loops(t: ShardDataLoaders, loaders: dict[cst.Call, Loader]) -> None:
    """Each `for` over an item a literal key takes (`state["loader"]`) whose sources are
    loaders of `loaders`: one of their read_loops."""
    module = t._module_node
    if not loaders or "[" not in (t.state.text or "["):
        return
    flow = view(module)
    keyed = [loop for loop in nodes_of(module, cst.For) if _keyed(flow, loop.iter)]
    if not keyed:
        return
    for loop in keyed:
        for origin in origins(flow, loop.iter):
            loader = loaders.get(origin.node) if isinstance(origin.node, cst.Call) else None
            if loader is None or origin.selects:
                continue
            if not any(loop is seen for seen, _, _ in loader.loops) and not any(
                loop is seen for seen in loader.read_loops
            ):
                loader.read_loops.append(loop)


def _keyed(flow: DefUse, iterable: cst.BaseExpression) -> bool:
    """`iterable` takes an item by a literal key, itself or through a name every binding
    of which does (`loader = self.data_loader["train"]`, then `for x, y in loader`: round
    39, limaosen0/AS-GCN@ab6951c's Processor, whose epoch's mean loss was rank 0's half
    with no word, DP011 "no loop" only)."""
    if any(literal_key(n) is not None for n in nodes_of(iterable, cst.Subscript)):
        return True
    for name in iterated(iterable):  # `loader`, `enumerate(loader)`: the alias itself
        bound = flow.definitions(name) if isinstance(name, cst.Name) else []
        if bound and all(
            isinstance(d.value, cst.Subscript) and literal_key(d.value) is not None for d in bound
        ):
            return True
    return False
