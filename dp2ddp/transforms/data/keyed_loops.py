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

from dp2ddp.flow import origins, view
from dp2ddp.flow.elements import literal_key
from dp2ddp.transforms._support.nodes import nodes_of
from dp2ddp.transforms.data.plan import Loader

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders


def register_keyed_loops(t: ShardDataLoaders, loaders: dict[cst.Call, Loader]) -> None:
    """Each `for` over an item a literal key takes (`state["loader"]`) whose sources are
    loaders of `loaders`: one of their read_loops."""
    module = t._module_node
    keyed = [
        loop
        for loop in nodes_of(module, cst.For)
        if any(literal_key(n) is not None for n in nodes_of(loop.iter, cst.Subscript))
    ]
    if not keyed or not loaders:
        return
    flow = view(module)
    for loop in keyed:
        for origin in origins(flow, loop.iter):
            loader = loaders.get(origin.node) if isinstance(origin.node, cst.Call) else None
            if loader is None or origin.selects:
                continue
            if not any(loop is seen for seen, _, _ in loader.loops) and not any(
                loop is seen for seen in loader.read_loops
            ):
                loader.read_loops.append(loop)
