"""A tensor shaped by the global batch size inside the loop over its sharded loader: per rank
(DP085 where the loader is not known).

soobinseo/Tacotron-pytorch@84dbb46 (train.py): inside the loop over
`DataLoader(dataset, batch_size=args.batch_size, drop_last=True, ...)`, the decoder's GO
frame is `np.zeros([args.batch_size, hp.num_mels, 1])`, concatenated to the batch's mel
frames. Under DataParallel the loader gave the whole batch, so the zeros had one row per
sample. Migrated, each rank's loader gives `ddp_per_rank_batch(args.batch_size)` samples:
`np.concatenate` fails on every rank at the first step ("the array at index 0 has size 4
and the array at index 1 has size 2"), and a tensor that broadcasts instead (`torch.ones(B,
1) * x`) would grow each rank's batch to the global size silently. The mirror of DP044 (a
per-rank-sized tensor meeting a whole batch).

What a batch dimension written as the loader's batch_size meant is "one row per sample of
this batch": per rank that is the loader's per-rank batch. So, in the body of a loop over a
loader the data pass made per rank (`batch_size=B` -> `ddp_per_rank_batch(B)`), where B is
spelled as that batch_size (`args.batch_size`, `opt.batchSize`, a name) and is a dimension
of a tensor the loop builds or reshapes, B is read per rank: `ddp_per_rank_batch(B)`. A
dimension is a size argument of a constructor (`torch.zeros(B, n)`, `np.ones([B, n])`,
`torch.full((B, 1), v)`'s shape, `Tensor(B)`, `x.new_zeros(B)`, `size=`/`shape=`; since stop
71 an identity `torch.eye(2 * B)` and a range `torch.arange(B)`: a contrastive loss's mask and
labels, one per sample of this batch) or of a
reshape (`x.view(B, -1)`, `.reshape`, `.expand`), also as a factor (`x.view(B * T, -1)`).
Random draws are the shared_draws pass's (batch_noise.py: drawn once for the global batch,
each rank keeps its rows). Left alone: B anywhere else (a divisor, a count, a print), a B
the loop itself rebinds, the loops over loaders left whole (their batches are global).
A global size handed beside a sharded loader's batch to a function of the program that sizes
a tensor by it is read per rank alike (handed_sizes.py). Said, not rewritten (DP085): the
same dimension in a loop over something not followed to a loader (which loader it iterates,
sharded or whole, is not known). With --per-process-batch the loaders keep their batch
size: nothing to read per rank.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import ModuleNodes, call_named, name_of, walk
from dp2ddp.transforms.analysis.chunk_sizes import ChunkPlan
from dp2ddp.transforms.data.batch_state import BatchState, plan_batch_state
from dp2ddp.transforms.data.handed_sizes import plan_handed_sizes
from dp2ddp.transforms.data.size_aliases import SizeAliases
from dp2ddp.transforms.data.size_guards import PER_RANK, sharded_loops

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders

#: Constructors whose positional arguments (or first argument, a list or tuple) are sizes.
_CONSTRUCTORS = frozenset(
    {"zeros", "ones", "empty", "Tensor", "FloatTensor", "DoubleTensor", "HalfTensor",
     "LongTensor", "IntTensor", "ByteTensor", "BoolTensor", "new_zeros", "new_ones",
     "new_empty"}
)  # fmt: skip
#: Constructors whose first argument alone is the size (the second is the fill value).
_FILLED = frozenset({"full", "new_full"})
#: Constructors of one row (and column) per unit of each positional argument: an identity
#: (`torch.eye(2 * B)`, a contrastive loss's mask) and a range from 0 (`torch.arange(B)`,
#: its labels; `_ranged` for the start).
_SQUARE = frozenset({"eye"})
_RANGES = frozenset({"arange"})
#: Reshapes: every positional argument is a dimension of the result.
_RESHAPES = frozenset({"view", "reshape", "expand", "resize_", "broadcast_to"})
_SIZE_KEYWORDS = frozenset({"size", "shape"})
#: Splits into pieces of a size along dim 0 (`torch.split(t, n)`, `t.split(n)`): n is the
#: rows of each piece, one sample's worth each where the pieces are stacked batches.
_SPLIT_SIZES = frozenset({"split_size", "split_size_or_sections"})


def plan_batch_shapes(
    data: ShardDataLoaders,
    nodes: ModuleNodes,
    iterated_through: Callable[[cst.BaseExpression], list[cst.BaseExpression]],
    plan: ChunkPlan,
    unknown: list[tuple[cst.CSTNode, str, str]],
) -> None:
    """Add to `plan` the reads of a global batch size that shape a tensor in a loop over a
    sharded loader (swaps, records); to `unknown` those in loops not followed to a loader
    (DP085)."""
    found = list(sharded_loops(data, nodes, iterated_through))
    if not found:
        plan_handed_sizes(data, nodes, plan, _shaped_call, unknown)
        return
    aliases = SizeAliases(data, nodes, found[0][2])
    loops = {loop: globals_ for loop, globals_, _, _ in found if globals_}
    state = BatchState(data, loops, aliases)
    for loop, globals_, every, bound in found:
        sizes = globals_ or every
        for node in walk(loop.body, skip_scopes=True):
            if not isinstance(node, (cst.Name, cst.Attribute)):
                continue
            text = data.code(node)
            if text not in sizes and aliases.size_of(node) in sizes:
                text = f"{text} (= {aliases.size_of(node)})"
            elif text not in sizes:
                continue
            if text in bound or node in plan.swaps:
                continue
            if isinstance(data.parent(node), cst.Attribute):
                continue  # `args` of `args.batch_size`, or `B.real`
            if _innermost_loop(node, data) is not loop:
                continue  # an inner loop's: that loop's loader decides
            if not globals_ and _not_a_loader(loop.iter):
                continue
            call = _shaped_call(node, data)
            counted = _counted_range(node, data) if call is None and globals_ else None
            if counted is not None:
                plan.swaps[node] = call_named(PER_RANK, cst.Arg(node.deep_clone()))
                plan.records.append(
                    (
                        node,
                        f"{text} as the count of `{data.code(counted)}` in the loop over "
                        f"{data.code(loop.iter)}: one pass per sample of this rank's batch",
                    )
                )
                continue
            cut = state.rows_cut(node) if call is None and globals_ else None
            if cut is not None:
                plan.swaps[node] = call_named(PER_RANK, cst.Arg(node.deep_clone()))
                plan.records.append(
                    (
                        node,
                        f"{text} as a position of `{data.code(cut)}` in the loop over "
                        f"{data.code(loop.iter)}: counted in this rank's rows, per rank",
                    )
                )
                continue
            if call is None:
                continue
            if globals_:
                plan.swaps[node] = call_named(PER_RANK, cst.Arg(node.deep_clone()))
                plan.records.append(
                    (
                        node,
                        f"{text} as a dimension of `{data.code(call)}` in the loop over "
                        f"{data.code(loop.iter)}: this rank's batch, per rank",
                    )
                )
            else:
                unknown.append(
                    (
                        call,
                        "DP085",
                        f"`{data.code(call)}`: {text} is a DataLoader's global batch_size, each "
                        f"rank's loader gives ddp_per_rank_batch({text}); which loader "
                        f"{data.code(loop.iter)} is was not followed",
                    )
                )
    plan_batch_state(state, plan, _shaped_call, unknown)
    plan_handed_sizes(data, nodes, plan, _shaped_call, unknown)


def _shaped_call(node: cst.CSTNode, data: ShardDataLoaders) -> cst.Call | None:
    """The constructor or reshape call of which `node` is a dimension (alone, in the list or
    tuple of sizes, or a factor of one), else None."""
    child: cst.CSTNode = node
    parent = data.parent(child)
    while isinstance(parent, (cst.BinaryOperation, cst.Element, cst.Tuple, cst.List)):
        if isinstance(parent, cst.BinaryOperation) and not isinstance(
            parent.operator, cst.Multiply
        ):
            return None
        child, parent = parent, data.parent(parent)
    if not isinstance(parent, cst.Arg):
        return None
    call = data.parent(parent)
    if not isinstance(call, cst.Call) or parent not in call.args:
        return None
    name = name_of(call.func)
    if name.endswith("Tensor") and isinstance(child, (cst.Tuple, cst.List)):
        return None  # torch.Tensor([B, 3]): the values, not a size
    if parent.keyword is not None:
        if parent.keyword.value in _SIZE_KEYWORDS and name in _CONSTRUCTORS | _FILLED | _RESHAPES:
            return call
        if parent.keyword.value in _SPLIT_SIZES and name == "split":
            return call if _split_size(call, None, data) else None
        return None
    position = list(call.args).index(parent)
    if name in _SQUARE or (name in _RANGES and _ranged(call, position)):
        return call
    if name == "split":
        return call if _split_size(call, position, data) else None
    if name in _CONSTRUCTORS or name in _RESHAPES:
        return call
    if name in _FILLED and position == 0:
        return call
    return None


def _ranged(call: cst.Call, position: int) -> bool:
    """The argument at `position` is the end of a range of one element per unit from 0:
    `arange(B)`, `arange(0, B, device=d)` (no step)."""
    positional = [a for a in call.args if a.keyword is None]
    keywords = {a.keyword.value for a in call.args if a.keyword is not None}
    if any(a.star for a in call.args) or len(positional) > 2 or keywords & {"start", "step"}:
        return False  # `device=`, `dtype=` keep the rows
    if len(positional) == 2 and not (
        isinstance(positional[0].value, cst.Integer) and positional[0].value.value == "0"
    ):
        return False
    return position == len(positional) - 1


def _split_size(call: cst.Call, position: int | None, data: ShardDataLoaders) -> bool:
    """The argument at `position` (None: the size keyword) is the piece size of a split
    along dim 0: `torch.split(t, n)` (position 1), `t.split(n)` (position 0), no `dim=`
    other than 0 (PuzzleCAM's `merge_features`, stop 52 v2-B: `torch.split(features,
    batch_size)` of the tiles of the batch, stacked)."""
    function = "torch.split" in data.qualified_names(call.func)
    positional = [a for a in call.args if a.keyword is None]
    dims = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "dim"]
    dims += [a.value for a in positional[2 if function else 1 :]]
    if any(not (isinstance(d, cst.Integer) and d.value == "0") for d in dims):
        return False
    return position is None or position == (1 if function else 0)


def _counted_range(node: cst.CSTNode, data: ShardDataLoaders) -> cst.For | None:
    """The inner `for` that `node` counts: `for i in range(B)` (B its stop: `range(B)`,
    `range(0, B)`), in the body of the loop over a sharded loader. Under DataParallel B
    passes were one per sample of the whole batch (DeepFillv2's `for i in range(
    opt.batch_size): mask[i] = ...` filling a tensor of `img.shape[0]` rows); per rank the
    batch has ddp_per_rank_batch(B) samples, so B passes index past this rank's rows
    (IndexError at the first step, class B1, stop 34) or make B per-sample items for
    B // WORLD_SIZE samples. None for B anywhere else."""
    arg = data.parent(node)
    if not isinstance(arg, cst.Arg) or arg.keyword is not None:
        return None
    call = data.parent(arg)
    if not isinstance(call, cst.Call) or name_of(call.func) != "range":
        return None
    args = list(call.args)
    if len(args) not in (1, 2) or args[-1] is not arg or any(a.star for a in args):
        return None
    loop = data.parent(call)
    return loop if isinstance(loop, cst.For) and loop.iter is call else None


def _innermost_loop(node: cst.CSTNode, data: ShardDataLoaders) -> cst.For | None:
    """The nearest `for` around `node` in its function (None past a def or a lambda); a
    `for` whose iterable holds `node` is not around it (the iterable is evaluated once,
    in the loop around that `for`)."""
    child, parent = node, data.parent(node)
    while parent is not None:
        if isinstance(parent, cst.For) and child is not parent.iter:
            return parent
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return None
        child, parent = parent, data.parent(parent)
    return None


def _not_a_loader(iterated: cst.BaseExpression) -> bool:
    """`range(n)`, `enumerate(range(n))`, a literal list or tuple: no loader's batches."""
    while isinstance(iterated, cst.Call) and name_of(iterated.func) in ("enumerate", "reversed"):
        if not iterated.args:
            return False
        iterated = iterated.args[0].value
    if isinstance(iterated, cst.Call):
        return name_of(iterated.func) == "range"
    return isinstance(iterated, (cst.List, cst.Tuple, cst.Set, cst.SimpleString, cst.Integer))
