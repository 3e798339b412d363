"""State sized by the global batch size that meets this rank's rows in the loop over its
sharded loader: per rank (DP156 where not proved).

Round 23 of issue 28 (rd repro_contrastive, the SimCLR / InfoNCE loss of joshr17/HCL@7b4647f
written with its loop at module level): a contrastive loss builds its negatives' mask and its
labels from the global batch size, `labels = torch.arange(batch_size)` once before the loop,
`pos = (z[:batch_size] * z[batch_size:])` of the two views' outputs stacked, and combines
them with the wrapped model's outputs. Under DataParallel the outputs were gathered, B rows
each. Migrated, each rank's loader gives `ddp_per_rank_batch(B)` samples: the labels keep B
rows beside the rank's B / WORLD_SIZE (cross_entropy raises), the cut at B takes the first
view whole and leaves the second empty, and the migration said nothing.

What the size meant is the one batch_shapes.py reads per rank in the loop ("one row per
sample of this batch"); here it reaches the loop's rows in two more ways, each proved on the
def-use view, the same at module level as in a function (the view's scopes are both):

* a slice (`z[:B]`, `z[B:2 * B]`: handed_sizes.cut_bound) in the body of the loop over a
  sharded loader of the first dimension of a value whose sources (flow.origins, through
  the library's calls) are an output of the wrapped model taken whole or a part of this
  rank's batch: positions counted by the batch size in rows that are now the rank's
  share (an index, `feats[B]`, and a part of an output, one of the levels it returns,
  are not: round 22's literals equal to the batch size that count levels);
* state: a name bound (`name = <value>`, outside the loop) to a value in which B is a
  dimension of a constructor or reshape (batch_shapes' `shaped_call`: `torch.arange(B)`,
  `~torch.eye(2 * B, dtype=bool)`) or handed to a function of the program that sizes a
  tensor by it (handed_sizes.sized_in_every: `get_negative_mask(B)`), whose every read
  (the uses the binding reaches) lies in the body of a loop over a sharded loader of that
  global batch size: the tensor is built for those loops' batches, so B is read per rank
  there. Where some read is elsewhere too (a loop over a loader left whole, a function
  called from anywhere), what rows it meets is not proved: left as written and said
  (DP156). A binding never read in such a loop is not this class: left alone.

B is the loader's batch_size as spelled there, or a name bound only to it (SizeAliases);
a B the data pass already reads per rank, or one in the loop's own body (batch_shapes'),
is not visited again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import Definition, DefUse, origins, view
from dp2ddp.transforms._support.nodes import call_named, calls_model, walk
from dp2ddp.transforms.analysis.chunk_sizes import ChunkPlan
from dp2ddp.transforms.data.handed_sizes import ShapedCall, cut_bound, sized_in_every
from dp2ddp.transforms.data.handoffs import global_batch_size
from dp2ddp.transforms.data.size_aliases import SizeAliases
from dp2ddp.transforms.data.size_guards import PER_RANK

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders

#: each loop over a sharded loader, with the global batch sizes (as spelled) of its loaders
Loops = dict[cst.For, set[str]]


class BatchState:
    """The module's facts the two questions share: the def-use view, the sharded loaders'
    global sizes, the wrapped models' calls."""

    def __init__(self, data: ShardDataLoaders, loops: Loops, aliases: SizeAliases) -> None:
        self.data = data
        self.loops = loops
        self.aliases = aliases
        self.flow: DefUse = view(data._module_node)
        self.sharded = {c: g for c in data._edits if (g := global_batch_size(data, c)) is not None}
        wrapped = set(data.state.wrapped)
        self.stop: Callable[[cst.Call], bool] = lambda call: calls_model(call, wrapped)

    def size_text(self, node: cst.CSTNode) -> str | None:
        """The global batch size `node` is (as spelled at its loader), else None."""
        text = self.data.code(node)
        sizes = {t for texts in self.loops.values() for t in texts}
        if text in sizes:
            return text
        return self.aliases.size_of(node)

    def rows_cut(self, node: cst.CSTNode) -> cst.Subscript | None:
        """The slice of this rank's rows (an output of the wrapped model, whole, or a part
        of this rank's batch) that `node` is a bound of, else None. An index (`feats[B]`)
        or a part of an output (one of the tensors or levels it returns) is no position
        in the rows: round 22's `feats[last]` picked a feature level."""
        subscript = cut_bound(node, self.data)
        if subscript is None or not self.sharded:
            return None
        if not isinstance(subscript.slice[0].slice, cst.Slice):
            return None
        for origin in origins(self.flow, subscript.value, self.stop):
            if origin.selects:
                continue
            if isinstance(origin.node, cst.Call) and self.stop(origin.node) and not origin.cut:
                return subscript
            if origin.node in self.sharded and origin.cut:
                return subscript
        return None

    def reading_loop(self, use: cst.CSTNode) -> cst.For | None:
        """The loop over a sharded loader whose body holds `use`, in its function."""
        child, parent = use, self.data.parent(use)
        while parent is not None:
            if isinstance(parent, cst.For) and child is parent.body and parent in self.loops:
                return parent
            if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return None
            child, parent = parent, self.data.parent(parent)
        return None


def plan_batch_state(
    state: BatchState,
    plan: ChunkPlan,
    shaped_call: ShapedCall,
    said: list[tuple[cst.CSTNode, str, str]],
) -> None:
    """Add to `plan` the global batch sizes of state built for the sharded loops' batches
    (swaps, records); to `said` those of state read there and elsewhere (DP156)."""
    data, flow = state.data, state.flow
    seen: set[int] = set()
    sized: dict[tuple[cst.CSTNode, str], cst.CSTNode | None] = {}
    for loop in state.loops:
        for read in walk(loop.body, skip_scopes=True):
            if not isinstance(read, cst.Name):
                continue
            for definition in flow.reaching(read):
                if id(definition) in seen or not _plain(definition, loop, data):
                    continue
                seen.add(id(definition))
                assert definition.value is not None and isinstance(definition.target, cst.Name)
                for size, text, shaped in _sizes_in(state, definition.value, shaped_call, sized):
                    if size in plan.swaps:
                        continue
                    readers = _readers(flow, definition)
                    outside = [r for r in readers if not _reads_size(state, r, text)]
                    name = definition.target.value
                    if outside:
                        said.append(_said(state, size, text, name, shaped, loop, outside[0]))
                        continue
                    plan.swaps[size] = call_named(PER_RANK, cst.Arg(size.deep_clone()))
                    plan.records.append(
                        (
                            size,
                            f"{text} sizes `{data.code(shaped)}` (line {_line(data, shaped)}), "
                            f"bound to {name}, read only in the loop over "
                            f"{data.code(loop.iter)}: this rank's batch, per rank",
                        )
                    )


def _plain(definition: Definition, loop: cst.For, data: ShardDataLoaders) -> bool:
    """`name = value` outside `loop`'s body (a binding in it is batch_shapes')."""
    if definition.kind != "assign" or definition.element or definition.value is None:
        return False
    if not isinstance(definition.target, cst.Name):
        return False
    node: cst.CSTNode | None = definition.statement
    while node is not None:
        if node is loop.body:
            return False
        node = data.parent(node)
    return True


def _sizes_in(
    state: BatchState,
    value: cst.BaseExpression,
    shaped_call: ShapedCall,
    sized: dict[tuple[cst.CSTNode, str], cst.CSTNode | None],
) -> list[tuple[cst.Name | cst.Attribute, str, cst.CSTNode]]:
    """(the node, its size as spelled, what it sizes) of each global batch size in `value`
    that is a dimension of a constructor or reshape there, or handed to a function of the
    program that sizes a tensor by the parameter it binds."""
    found: list[tuple[cst.Name | cst.Attribute, str, cst.CSTNode]] = []
    for node in walk(value, skip_scopes=True):
        if not isinstance(node, (cst.Name, cst.Attribute)):
            continue
        if isinstance(state.data.parent(node), cst.Attribute):
            continue  # `args` of `args.batch_size`
        text = state.size_text(node)
        if text is None:
            continue
        shaped: cst.CSTNode | None = shaped_call(node, state.data)
        arg = state.data.parent(node)
        call = state.data.parent(arg) if isinstance(arg, cst.Arg) else None
        if shaped is None and isinstance(call, cst.Call) and isinstance(arg, cst.Arg):
            callees = state.flow.callees(call)
            if callees:
                shaped = sized_in_every(
                    callees, call, arg, state.flow, state.data, shaped_call, sized
                )
        if shaped is not None:
            found.append((node, text, shaped))
    return found


def _readers(flow: DefUse, definition: Definition) -> list[cst.Name]:
    """The reads of the name `definition` binds that it may reach."""
    assert isinstance(definition.target, cst.Name)
    scope = flow.scope_of(definition.target)
    return [
        use
        for use in flow.uses(scope, definition.target.value)
        if any(d is definition for d in flow.reaching(use))
    ]


def _reads_size(state: BatchState, reader: cst.Name, text: str) -> bool:
    """`reader` is in the body of a loop over a sharded loader of global batch size `text`."""
    loop = state.reading_loop(reader)
    return loop is not None and text in state.loops[loop]


def _line(data: ShardDataLoaders, node: cst.CSTNode) -> int:
    """`node`'s line in the input (the pass's tree may hold lines it added)."""
    return data.input_position(node)[0]


def _said(
    state: BatchState,
    size: cst.CSTNode,
    text: str,
    name: str,
    shaped: cst.CSTNode,
    loop: cst.For,
    outside: cst.Name,
) -> tuple[cst.CSTNode, str, str]:
    data = state.data
    return (
        size,
        "DP156",
        f"{text}, a DataLoader's global batch_size (each rank's loader gives "
        f"ddp_per_rank_batch({text}) samples), sizes `{data.code(shaped)}` (line "
        f"{_line(data, shaped)}), bound to {name} and read beside this rank's batch in the "
        f"loop over {data.code(loop.iter)} (line {_line(data, loop)}) and at line "
        f"{_line(data, outside)} outside it: not proved which rows it meets; left as written",
    )
