"""What a pass fills item by item: one answer for step_buffers.py and index_tables.py.

Both ask the same questions of a name a loop over a sharded loader stores into by
subscript (`steps[i] = loss.item()`, `PS[idx] = F.softmax(out, 1)`):

- `made_to_fill`: is it bound to a torch tensor or a numpy array made to be filled
  (`torch.zeros(n)`, `np.full(...)`, `torch.zeros(...).cuda()`; with `lists`, also a list
  of numbers or Nones: `[0.0] * n`, `[None] * n`, `[0 for _ in range(n)]`)? Every binding
  that reaches the store (the def-use view's, flow/defuse.py: in the loop's block and the
  blocks around it, the module's where the function binds none) must be one, a rebinding
  that only moves or converts it (`buf = buf.cuda()`) answered by what it converts.
- `read_in_pass`: the first line of the loop itself that reads it (a later step reading
  what earlier steps wrote), for a table read nowhere after the loop.
- `read_after`: the first line after the loop where the name is read for a value it holds:
  not a store into it, nor, where it is made to fill, `len(name)`, `name.shape`,
  `name.size()` (fixed when it was made; a dict filled by key counts its keys); none
  where a call after the loop reduces or gathers it (`dist.all_reduce(PS)`, dp2ddp's own
  `ddp_whole_table`): the program makes it whole itself.

Until stop 47 each module had its own answer: step_buffers read the one value bound before
the loop in its block (torch's and numpy's zeros/empty/ones/full only) and any read after
it but a length or a shape, and took a buffer the program reduces itself for one it does
not; index_tables followed every reaching binding (any constructor, through `.cuda()` but
not `buf = buf.cuda()`) and counted any mention after the loop, `len(PS)` of an array and
another object's attribute of the name included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import name_of, walk

if TYPE_CHECKING:
    from dp2ddp.transforms.data.counters import LoopCounters

#: torch's and numpy's calls that make an array to fill (qualified name's last part).
_CONSTRUCTORS = frozenset(
    {"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like"}
    | {"rand", "randn", "tensor", "as_tensor", "array", "asarray"}
)
#: Methods that move or convert an array and keep its values.
KEEPING = frozenset({"to", "cuda", "cpu", "long", "int", "numpy", "tolist", "view", "flatten"})
_CONVERTING = KEEPING | {"float", "double", "half", "zero_"}
#: Calls after the loop that make a table whole on every rank (the program's own fix).
_WHOLE_MAKERS = (
    "all_reduce",
    "all_gather",
    "all_gather_into_tensor",
    "broadcast",
    "ddp_whole_table",
)
#: Reads of a name that show no value it holds: its length and shape.
_SHAPE_READS = frozenset({"shape", "size", "ndim", "dtype", "device"})


def made_to_fill(t: LoopCounters, name: cst.Name, *, lists: bool = False) -> bool:
    """Every binding reaching `name` makes a torch tensor or a numpy array (`lists`: or a
    list of numbers or Nones); see the module docstring."""
    flow = view(t._module_node)
    todo, seen = [name], set()
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        found = [d for d in flow.reaching(current) if d.kind != "store"]
        if not found:
            return False
        for definition in found:
            value = definition.value
            if definition.kind != "assign" or definition.element or value is None:
                return False
            while (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and value.func.attr.value in _CONVERTING
                and not t.qualified_names(value.func)
            ):
                value = value.func.value
            if isinstance(value, cst.Name):
                todo.append(value)  # `buf = buf.cuda()`: what it converts
            elif not (_constructor(t, value) or lists and _numbers_list(t, value)):
                return False
    return True


def _constructor(t: LoopCounters, value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Call) and any(
        q.rsplit(".", 1)[0] in ("torch", "numpy") and q.rsplit(".", 1)[1] in _CONSTRUCTORS
        for q in t.qualified_names(value.func)
    )


def _numbers_list(t: LoopCounters, value: cst.BaseExpression) -> bool:
    """A list of numbers or Nones (`[0] * n`, `[None] * n`, `[0.0 for _ in range(n)]`)."""
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Multiply):
        return any(
            isinstance(side, cst.List)
            and len(side.elements) == 1
            and isinstance(side.elements[0].value, cst.Name)
            and side.elements[0].value.value == "None"
            for side in (value.left, value.right)
        ) or t._numbers(value)
    return isinstance(value, (cst.ListComp, cst.Call)) and t._numbers(value)


def read_after(
    t: LoopCounters, scope: cst.CSTNode, name: str, end: int, *, sized: bool
) -> int | None:
    """The input line of the first read of `name` for a value it holds after line `end` in
    `scope`; None when there is none, or where a call after the loop reduces or gathers it
    (the module docstring). `sized`: `name` is made to fill (made_to_fill), so its length
    and shape were fixed when it was made; otherwise (a dict filled by key) they count what
    was filled and are reads."""
    first = None
    for node in walk(scope, skip_scopes=True):
        if isinstance(node, cst.Call) and name_of(node.func) in _WHOLE_MAKERS:
            if any(isinstance(n, cst.Name) and n.value == name for n in walk(node)):
                if t.get_metadata(PositionProvider, node).start.line > end:
                    return None
        if not names_table(t, node, name):
            continue
        line = t.get_metadata(PositionProvider, node).start.line
        if line <= end or first is not None and line >= first or not _value_read(t, node, sized):
            continue
        first = line
    return t.state.line_map(first) if first is not None else None


def read_in_pass(
    t: LoopCounters, loop: cst.For, name: str, written: list[cst.Subscript], *, sized: bool
) -> int | None:
    """The input line of the first read of `name` in `loop`'s own body for a value it holds
    (GuYuc/WS-DAN.PyTorch@8777912, stop 58: `feature_center_batch = feature_center[y]`
    before `feature_center[y] += beta * (...)`): a later step reads rows earlier steps
    wrote. Not the `written` subscripts themselves, nor, after a write, a read of the same
    rows (`table[i]` with that write's index: what this step just wrote). None where the
    pass reads it nowhere else."""
    targets = {id(w.value) for w in written}
    after_write = {
        (t.code(w.slice[0].slice) if len(w.slice) == 1 else None): t.get_metadata(
            PositionProvider, w
        ).start.line
        for w in written
    }
    for node in walk(loop.body, skip_scopes=True):
        if not names_table(t, node, name) or id(node) in targets:
            continue
        if not _value_read(t, node, sized):
            continue
        line = t.get_metadata(PositionProvider, node).start.line
        parent = t.parent(node)
        if isinstance(parent, cst.Subscript) and len(parent.slice) == 1:
            since = after_write.get(t.code(parent.slice[0].slice))
            if since is not None and line > since:
                continue  # the rows this step wrote
        return t.state.line_map(line)
    return None


def names_table(t: LoopCounters, node: cst.CSTNode, name: str) -> bool:
    """`node` is the table `name`: a name, or an item of a dict by a literal key (`state[
    "center"]`: round 36, wvinzh/WS_DAN_PyTorch@cbf7ff5's centres kept in a state dict)."""
    if name.isidentifier():
        return isinstance(node, cst.Name) and node.value == name
    return isinstance(node, cst.Subscript) and t.code(node) == name


def _value_read(t: LoopCounters, node: cst.CSTNode, sized: bool) -> bool:
    """`node` reads a value the name holds (not a store into it; where `sized`, not its
    length or its shape)."""
    parent = t.parent(node)
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return False  # another object's attribute of that name
    if sized and isinstance(parent, cst.Attribute) and parent.attr.value in _SHAPE_READS:
        return False
    if sized and isinstance(parent, cst.Arg):
        call = t.parent(parent)
        if isinstance(call, cst.Call) and name_of(call.func) == "len":
            return False
    return not (
        isinstance(parent, cst.Subscript) and isinstance(t.parent(parent), cst.AssignTarget)
    )
