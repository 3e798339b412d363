"""The global batch size handed, beside this rank's batch, to a function that sizes a tensor
by it: per rank.

arpitbansal297/Cold-Diffusion-Models@f8b1379 resolution_diffusion_pytorch.py:958-959 → 431
(stop 51, v4-A): a Trainer keeps DataParallel's global batch size (`self.batch_size =
train_batch_size`, the value its DataLoader's batch_size is given) and hands it to the model's
sampling method beside a batch drawn from that loader: `batches = self.batch_size; og_img =
next(self.dl); sample(batch_size=batches, img=og_img)`, whose body builds
`torch.full((batch_size,), t)` and combines it with the batch's rows. Under DataParallel the
loader gave the whole batch, so the sizes agreed. Migrated, each rank's loader gives
`ddp_per_rank_batch(B)` samples: the time steps have B rows beside the rank's B / WORLD_SIZE,
and both ranks crash at the first sampling step, nothing said.

What the size meant is the one batch_shapes.py reads per rank ("one row per sample of this
batch"), carried into the function it is handed to. Proved on the def-use view, for a call of
the program's own functions (the view's callees, every one of them) with two arguments:

* one bound, in every callee, to a parameter that is a dimension of a constructor or a
  reshape there (batch_shapes' `_shaped_call`: `torch.full((n,), v)`, `torch.zeros(n, k)`,
  `.expand(n, k)`); a parameter only divided or counted by is not this;
* another whose value comes (flow.origins) from a part of a DataLoader the data pass shards
  and reads per rank (a loop's batch, `next(it)` of it, through the program's own generators
  such as `cycle(loader)`): this rank's batch;
* the first proved to be that loader's global batch size: its sources (flow.origins, through
  names, `self.x` set in `__init__`, parameters and their call sites) are exactly those of the
  expression the loader's `batch_size=` was given.

Then the argument (a name or an attribute) is read per rank, `ddp_per_rank_batch(B)`, and the
rewrite is recorded naming the line where the callee sizes by it. Since stop 52 (s2) also an
integer literal whose value every source of the loader's batch_size has
(`sample(batch_size=4, img=og)` beside `DataLoader(..., batch_size=4)`; since stop 71 also
a name every definition of which is that literal: `batch_size = 8` beside `batch_size=8`,
round 23's module-level contrastive loop), and the operand of
a product by a literal that is the global batch size (`bs * 2` beside `torch.cat([og, x])`:
the same multiple of the rank's share); a literal of another value stays. Since stop 52 (w3)
also the left operand of a floor division by a positive literal (`bs // 2` beside `og[::2]`:
the same part of the share, `ddp_per_rank_batch(bs) // 2`); other arithmetic of the global
batch size (`bs + 1`, `bs - 1`, `max(bs, 2)`) keeps no provable meaning for the rank's rows:
left as written and said (DP156). Since stop 67 (round 20 of issue 28) the size parameter
may also cut the rows of another parameter (`out[:n]`, `out[n:2 * n]`: positions counted
by the batch size in a batch laid out as [firsts | seconds]), and the rows beside it may be
the output of a wrapped model given this rank's batch (`pair_loss(model(x), n)`). A size
handed with no batch of a sharded loader beside it (a sample or debug batch of its own) is
left alone.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, Function, Origin, code, origins, view
from dp2ddp.transforms._support.nodes import ModuleNodes, call_named, calls_model, walk
from dp2ddp.transforms.analysis.chunk_sizes import ChunkPlan
from dp2ddp.transforms.analysis.training import loop_trains
from dp2ddp.transforms.data.handoffs import fed_size_loops, global_batch_size
from dp2ddp.transforms.data.size_guards import PER_RANK

if TYPE_CHECKING:
    from dp2ddp.transforms.data import ShardDataLoaders

#: the arguments read as a size: a name, an attribute, a literal, arithmetic, a call
#: (`max(bs, 2)`, said where it derives from the global batch size)
_SIZES = (cst.Name, cst.Attribute, cst.Integer, cst.BinaryOperation, cst.Call)
#: the operands `_global_part` reads per rank and `_derived_from` looks for
_READ = (cst.Name, cst.Attribute, cst.Integer, cst.BinaryOperation)
#: the constructor or reshape call a node is a dimension of (batch_shapes._shaped_call)
ShapedCall = Callable[[cst.CSTNode, "ShardDataLoaders"], "cst.Call | None"]


def plan_handed_sizes(
    data: ShardDataLoaders,
    nodes: ModuleNodes,
    plan: ChunkPlan,
    shaped_call: ShapedCall,
    said: list[tuple[cst.CSTNode, str, str]],
) -> None:
    """Add to `plan` the global batch sizes handed beside a sharded loader's batch to
    functions of the program that size a tensor by them (swaps, records); to `said` those
    handed to a function this module does not read (DP140)."""
    said.extend(_said_fed_sizes(data, nodes))
    sharded = {c: g for c in data._edits if (g := global_batch_size(data, c)) is not None}
    if not sharded:
        return
    flow = view(data._module_node)
    wrapped = set(data.state.wrapped)
    sized: dict[tuple[cst.CSTNode, str], cst.CSTNode | None] = {}  # (function, parameter)
    objects = _object_calls(nodes, flow)
    for call in nodes.of(cst.Call):
        callees = flow.callees(call)
        if not callees and len(call.args) >= 2:
            said.extend(said_unread(data, call, sharded, flow))
        built = objects.get(id(call), []) if callees else []
        if not callees or len(call.args) < 2 and not built:
            continue
        for arg in call.args:
            if arg.star or not isinstance(arg.value, _SIZES) or arg.value in plan.swaps:
                continue
            shaped = sized_in_every(callees, call, arg, flow, data, shaped_call, sized)
            if shaped is None:
                continue
            loader = _rank_batch_beside(call, arg, sharded, flow, wrapped) or next(
                (b for c in built if (b := _rank_batch_beside(c, arg, sharded, flow, wrapped))),
                None,
            )
            if loader is None:
                continue
            size = _global_part(arg.value, sharded[loader], flow)
            if size is None:
                said.extend(_said_derived(data, call, arg, loader, shaped, sharded, flow))
            if size is None or size in plan.swaps:
                continue
            plan.swaps[size] = call_named(PER_RANK, cst.Arg(size.deep_clone()))
            plan.records.append(
                (
                    size,
                    f"{data.code(size)} is the global batch_size of {data.code(loader)} handed "
                    f"to `{data.code(call.func)}` beside that loader's batch, which sizes "
                    f"`{data.code(shaped)}` (line {data.line_of(shaped)}) by it: this rank's "
                    f"batch, per rank",
                )
            )


def _object_calls(nodes: ModuleNodes, flow: DefUse) -> dict[int, list[cst.Call]]:
    """id of a construction of a class of this module -> the calls of the object it builds
    (`criterion = PairLoss(batch_size=B)`, then `criterion(model(a), model(b))`): what they
    are given stands beside the size the construction is handed (round 34, AidenDurrant/
    SimCLR-Pytorch@c3c6f65: a contrastive loss's mask `torch.eye(batch_size)` built for the
    loaders' global batch size met this rank's outputs: IndexError at the first step on
    every rank, no warning). One pass over the module's calls."""
    found: dict[int, list[cst.Call]] = {}
    for call in nodes.of(cst.Call):
        if not isinstance(call.func, cst.Name):
            continue
        for definition in flow.definitions(call.func):
            made = definition.value
            if isinstance(made, cst.Call) and flow.class_called(made) is not None:
                found.setdefault(id(made), []).append(call)
    return found


def sized_in_every(
    callees: list[Function],
    call: cst.Call,
    arg: cst.Arg,
    flow: DefUse,
    data: ShardDataLoaders,
    shaped_call: ShapedCall,
    sized: dict[tuple[cst.CSTNode, str], cst.CSTNode | None],
) -> cst.CSTNode | None:
    """The first constructor or reshape sized by the parameter `arg` binds, where it is such a
    dimension in every callee (or the cut of another parameter's rows at a multiple of it:
    `_cut_at`); else None. `sized`: each parameter's answer, once."""
    first: cst.CSTNode | None = None
    for callee in callees:
        param = _param_of(callee, call, arg)
        if param is None:
            return None
        key = (callee.node, param)
        if key not in sized:
            uses = flow.uses(callee.node, param)
            shaped: list[cst.CSTNode | None] = [shaped_call(u, data) for u in uses]
            shaped += [_cut_at(u, callee, data) for u in uses]  # a cut of handed rows
            sized[key] = next((c for c in shaped if c is not None), None)
        if sized[key] is None:
            return None
        first = first or sized[key]
    return first


def _rank_batch_beside(
    call: cst.Call,
    size: cst.Arg,
    sharded: dict[cst.Call, cst.BaseExpression],
    flow: DefUse,
    wrapped: set[str],
) -> cst.Call | None:
    """The sharded loader another argument of `call` is a part of (this rank's batch), or
    whose part a wrapped model's call that argument is the output of is given (round 20 of
    issue 28: `triplet_loss(model(x), n)`, the output of this rank's rows)."""

    def stop(other: cst.Call) -> bool:
        return calls_model(other, wrapped)

    for arg in call.args:
        if arg is size or arg.star:
            continue
        for origin in origins(flow, arg.value, stop if wrapped else None):
            if origin.selects:
                continue
            if origin.node in sharded and origin.cut:
                assert isinstance(origin.node, cst.Call)
                return origin.node
            if isinstance(origin.node, cst.Call) and wrapped and stop(origin.node):
                given = [a.value for a in origin.node.args if not a.star]
                for inner in (o for value in given for o in origins(flow, value)):
                    if inner.node in sharded and inner.cut and not inner.selects:
                        assert isinstance(inner.node, cst.Call)
                        return inner.node
    return None


def _cut_at(use: cst.CSTNode, callee: Function, data: ShardDataLoaders) -> cst.Subscript | None:
    """The subscript `use` (a parameter's read) is a bound of, alone or times a literal, where
    it cuts the first dimension of another parameter of `callee` (`emb[:n]`, `emb[n:2 * n]`):
    positions counted by a batch size in the rows of a batch or of an output it is handed."""
    subscript = cut_bound(use, data)
    params = {p.name.value for p in callee.params}
    if (
        subscript is not None
        and isinstance(subscript.value, cst.Name)
        and subscript.value.value in params
        and subscript.value.value != data.code(use)
    ):
        return subscript
    return None


def cut_bound(use: cst.CSTNode, data: ShardDataLoaders) -> cst.Subscript | None:
    """The subscript whose first dimension `use` is the index or a slice bound of, alone or
    times an integer literal (`z[:n]`, `z[n:2 * n]`, `z[n]`), else None."""
    node: cst.CSTNode = use
    parent = data.parent(node)
    while (
        isinstance(parent, cst.BinaryOperation)
        and isinstance(parent.operator, cst.Multiply)
        and isinstance(parent.left if parent.right is node else parent.right, cst.Integer)
    ):
        node, parent = parent, data.parent(parent)
    if isinstance(parent, cst.Index) and parent.value is node:
        element = data.parent(parent)
    elif isinstance(parent, cst.Slice) and node in (parent.lower, parent.upper):
        element = data.parent(parent)
    else:
        return None
    subscript = data.parent(element) if isinstance(element, cst.SubscriptElement) else None
    if isinstance(subscript, cst.Subscript) and subscript.slice[0] is element:
        return subscript
    return None


def _global_part(
    size: cst.BaseExpression, batch_size: cst.BaseExpression, flow: DefUse
) -> cst.Name | cst.Attribute | cst.Integer | None:
    """The part of the argument `size` that is the loader's global batch size, to read per
    rank: `size` itself where its sources are exactly those of the loader's `batch_size=`
    expression (a name or an attribute), or where it is an integer literal and every source
    of that expression is a literal of the same value (`sample(batch_size=4, ...)` beside
    `DataLoader(..., batch_size=4)`); in a product by an integer literal (`bs * 2`, beside
    `torch.cat([og, og])`), that operand: DataParallel's size was a multiple of the global
    batch, the rank's is the same multiple of its share. None otherwise (a sum, a literal of
    another value, a size of its own: left as written)."""
    if isinstance(size, (cst.Name, cst.Attribute)):
        if _same_sources(size, batch_size, flow):
            return size
        value = _literal_value(flow, size)  # `batch_size = 8` beside `batch_size=8`
        return size if value is not None and value == _literal_value(flow, batch_size) else None
    if isinstance(size, cst.Integer):
        value = _literal_value(flow, batch_size)
        return size if value is not None and value == size.evaluated_value else None
    if isinstance(size, cst.BinaryOperation) and isinstance(size.operator, cst.Multiply):
        for part, factor in ((size.left, size.right), (size.right, size.left)):
            if isinstance(factor, cst.Integer) and isinstance(part, _READ):
                read = _global_part(part, batch_size, flow)
                if read is not None:
                    return read
    if (
        isinstance(size, cst.BinaryOperation)
        and isinstance(size.operator, cst.FloorDivide)
        and isinstance(size.right, cst.Integer)
        and size.right.evaluated_value > 0
        and isinstance(size.left, _READ)
    ):
        return _global_part(size.left, batch_size, flow)  # the same part of the share
    return None


def _literal_value(flow: DefUse, expr: cst.BaseExpression) -> int | None:
    """The integer every source of `expr` is a literal of (`8`, or a name every definition
    of which reads such a literal), where it has sources and they agree; else None."""
    found = origins(flow, expr)
    literals = [o.node for o in found if o.kind == "constant" and isinstance(o.node, cst.Integer)]
    values = {n.evaluated_value for n in literals}
    if not found or len(literals) != len(found) or len(values) != 1:
        return None
    (value,) = values
    return value if isinstance(value, int) else None


def _derived_from(
    size: cst.BaseExpression, batch_size: cst.BaseExpression, flow: DefUse
) -> cst.BaseExpression | None:
    """A name or an attribute inside the arithmetic `size` (an operand of `+`, `-`, `%`,
    `/`, ..., an argument of a call such as `max(bs, 2)`) that is the loader's global batch
    size: the size is derived from it by arithmetic that is no multiple or part of it."""
    parts: list[cst.BaseExpression] = []
    if isinstance(size, cst.BinaryOperation):
        parts = [size.left, size.right]
    elif isinstance(size, cst.Call):
        parts = [a.value for a in size.args if not a.star]
    elif isinstance(size, cst.UnaryOperation):
        parts = [size.expression]
    for part in parts:
        if isinstance(part, (cst.Name, cst.Attribute)) and _same_sources(part, batch_size, flow):
            return part
        if isinstance(part, (cst.BinaryOperation, cst.Call, cst.UnaryOperation)):
            found = _global_part(part, batch_size, flow) or _derived_from(part, batch_size, flow)
            if found is not None:
                return found
    return None


def _said_derived(
    data: ShardDataLoaders,
    call: cst.Call,
    arg: cst.Arg,
    loader: cst.Call,
    shaped: cst.CSTNode,
    sharded: dict[cst.Call, cst.BaseExpression],
    flow: DefUse,
) -> list[tuple[cst.CSTNode, str, str]]:
    """DP156 (stop 52 w3): a size handed beside this rank's batch, to a parameter the callee
    sizes a tensor by, derived from the loader's global batch size by arithmetic that is no
    multiple or floor part of it (`bs + 1`, `bs - 1`, `max(bs, 2)`): what it means for this
    rank's rows is not proved, so it is left as written and said."""
    if not isinstance(arg.value, (cst.BinaryOperation, cst.Call, cst.UnaryOperation)):
        return []
    part = _derived_from(arg.value, sharded[loader], flow)
    if part is None:
        return []
    held = data._loaders[loader].binding if loader in data._loaders else None
    named = data.code(held) if held is not None else "the DataLoader"
    return [
        (
            arg.value,
            "DP156",
            f"`{data.code(arg.value)}` is derived from {data.code(part)}, the global batch_size "
            f"of {named} at line {data.line_of(loader)} (each rank's loader gives "
            f"ddp_per_rank_batch({data.code(part)}) samples), and handed to "
            f"`{data.code(call.func)}` beside that loader's batch, which sizes "
            f"`{data.code(shaped)}` (line {data.line_of(shaped)}) by it: not proved "
            "what it means for this rank's rows; left as written",
        )
    ]


def _same_sources(size: cst.BaseExpression, batch_size: cst.BaseExpression, flow: DefUse) -> bool:
    """`size` comes from exactly the sources the loader's batch_size does, none unknown."""
    found = origins(flow, size)
    if not found or any(o.kind == "unknown" for o in found):
        return False
    return {id(o.node) for o in found} == {id(o.node) for o in origins(flow, batch_size)}


def _param_of(callee: Function, call: cst.Call, arg: cst.Arg) -> str | None:
    """The name of `callee`'s parameter `arg` binds in `call`, else None."""
    params = [p.name.value for p in callee.params]
    if arg.keyword is not None:
        return arg.keyword.value if arg.keyword.value in params else None
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional):
        return None
    index = positional.index(arg)
    if callee.self_name is not None and isinstance(call.func, cst.Attribute):
        index += 1  # a method called on its receiver: `self` is bound by it
    return params[index] if index < len(params) else None


#: Libraries whose functions are not the program's (a grid's `nrow=`, a library's own size).
_LIBRARIES = ("torch", "torchvision", "numpy", "np", "math", "builtins", "PIL", "cv2")


def said_unread(
    data: ShardDataLoaders,
    call: cst.Call,
    sharded: dict[cst.Call, cst.BaseExpression],
    flow: DefUse,
) -> list[tuple[cst.CSTNode, str, str]]:
    """DP140 (stop 52 v2-B, shjo-april/PuzzleCAM@659b4c1 train_classification_with_puzzle.py:
    336): in a training loop, a sharded loader's global batch size handed to a function of
    the program this module does not read (another module's: `merge_features(tiled_features,
    args.num_pieces, args.batch_size)` of `from core.puzzle_utils import *`, which splits
    the output by it), beside an output of the wrapped model or this rank's batch. Whether
    the function sizes that rank's rows by it (then it must read ddp_per_rank_batch(B)) is
    not proved here, so it is said. Only a function called by a bare name that no library
    binds; the size proved the loader's (the same sources as its batch_size=). Since stop 67
    (round 20, bubbliiiing/facenet-pytorch@af7d20c: `fit_one_epoch(..., gen, ...,
    batch_size // 3, ...)` of utils/utils_fit.py, whose triplet loss cuts the output by it)
    also beside the sharded loader itself, in or out of a training loop: the function
    trains on its batches."""
    func = call.func
    if not isinstance(func, cst.Name) or hasattr(builtins, func.value):
        return []
    names = data.qualified_names(func)
    if any(n.split(".")[0] in _LIBRARIES for n in names):
        return []
    training = _training_loop(data, call) is not None  # else only the loader itself counts
    # a function of the program's other modules is told the size with the loader
    # (LoaderFeed.sizes): it reads it per rank, or says what it hands it to (_said_fed_sizes)
    read_elsewhere = bool(names & {name for name, _ in data.state.facts.loaders.consumers})
    wrapped = set(data.state.wrapped)

    def stop(other: cst.Call) -> bool:
        return calls_model(other, wrapped)

    for arg in call.args:
        size = arg.value
        if arg.star or not isinstance(size, (cst.Name, cst.Attribute, cst.BinaryOperation)):
            continue  # `batch_size // 3` beside `DataLoader(..., batch_size=batch_size // 3)`
        loader = next((c for c, b in sharded.items() if _same_size(size, b, flow)), None)
        if loader is None and isinstance(size, cst.BinaryOperation):
            loader = next((c for c, b in sharded.items() if _same_text(size, b, flow)), None)
        if loader is None:
            continue
        for other in call.args:
            if other is arg or other.star:
                continue
            what = rank_share(flow, other.value, stop, sharded) if training else None
            if (
                what is None
                and not read_elsewhere
                and any(
                    o.node is loader and not o.cut and not o.selects  # the loader itself
                    for o in origins(flow, other.value, stop)
                )
            ):
                what = "the sharded loader itself, whose batches it sizes"
            if what is None:
                continue
            held = data._loaders[loader].binding if loader in data._loaders else None
            named = data.code(held) if held is not None else "the DataLoader"
            return [
                (
                    call,
                    "DP140",
                    f"{data.code(size)}, the global batch_size of {named} at line "
                    f"{data.line_of(loader)} (each rank's loader gives "
                    f"ddp_per_rank_batch({data.code(size)}) samples), is "
                    f"handed to {func.value}(), which this module does not read, beside "
                    f"{data.code(other.value)}, {what}: not proved whether {func.value}() "
                    "sizes, splits or counts this rank's rows by it",
                )
            ]
    return []


def _said_fed_sizes(
    data: ShardDataLoaders, nodes: ModuleNodes
) -> list[tuple[cst.CSTNode, str, str]]:
    """DP140 in a function other modules hand a sharded loader and its global batch size
    (facts.LoaderFeed.sizes, handoffs.fed_size_loops): in the loop over that loader, the
    size handed on, beside the loop's batch or what is computed from it, to a callable this
    module does not read (a parameter, another module's function: bubbliiiing/
    facenet-pytorch@af7d20c's `loss(outputs1, Batch_size)`, a triplet loss of a third module
    that cuts the output by it; round 20 of issue 28, every rank raised unsaid): whether it
    sizes this rank's rows by it is not proved here."""
    found: list[tuple[cst.CSTNode, str, str]] = []
    fed = fed_size_loops(data, nodes)
    flow = view(data._module_node) if fed else None
    for loop, names in fed.items():
        assert flow is not None
        batch = {id(n) for n in walk(loop.target)}
        for call in (n for n in walk(loop.body) if isinstance(n, cst.Call)):
            func = call.func
            if (
                flow.callees(call)
                or not isinstance(func, cst.Name)
                or hasattr(builtins, func.value)
            ):
                continue
            sizes = [
                a.value
                for a in call.args
                if isinstance(a.value, cst.Name) and a.value.value in names
            ]
            rows = [
                a.value
                for a in call.args
                if not (isinstance(a.value, cst.Name) and a.value.value in names)
                and any(id(step.node) in batch for o in origins(flow, a.value) for step in o.path)
            ]
            if sizes and rows:
                found.append(
                    (
                        call,
                        "DP140",
                        f"{data.code(sizes[0])}, the global batch_size of the loader every "
                        f"caller hands this function (each rank's loader gives "
                        f"ddp_per_rank_batch({data.code(sizes[0])}) samples), is handed to "
                        f"{func.value}(), which this module does not read, beside "
                        f"{data.code(rows[0])}, computed from this rank's batch: not proved "
                        f"whether {func.value}() sizes, splits or counts this rank's rows by it",
                    )
                )
    return found


def _same_text(size: cst.BaseExpression, batch_size: cst.BaseExpression, flow: DefUse) -> bool:
    """`size` is written as the loader's batch_size (`batch_size // 3` both) and each name in
    it comes from the sources of the same name there."""
    if code(size) != code(batch_size):
        return False
    ours = [n for n in walk(size) if isinstance(n, cst.Name)]
    theirs = [n for n in walk(batch_size) if isinstance(n, cst.Name)]
    return bool(ours) and all(_same_sources(a, b, flow) for a, b in zip(ours, theirs, strict=True))


def _same_size(size: cst.BaseExpression, batch_size: cst.BaseExpression, flow: DefUse) -> bool:
    """`size` is the loader's batch_size: the same sources, and an attribute the same
    attribute (`args.num_pieces` and `args.batch_size` both come from `parse_args()`)."""
    if isinstance(size, cst.Attribute) and not (
        isinstance(batch_size, cst.Attribute) and batch_size.attr.value == size.attr.value
    ):
        return False
    held, given = _attribute_held(size, flow), _attribute_held(batch_size, flow)
    if held is not None and given is not None and held != given:
        return False  # `margin = args.margin` is not `args.bag_size` (stop 54 v3)
    return _same_sources(size, batch_size, flow)


def _attribute_held(expr: cst.BaseExpression, flow: DefUse) -> str | None:
    """The attribute a name holds where every definition of it is a plain `name = x.attr`
    of that one attribute (or `expr` is such an attribute); else None."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    if not isinstance(expr, cst.Name):
        return None
    definitions = flow.definitions(expr)
    held = {
        d.value.attr.value
        for d in definitions
        if d.kind == "assign" and not d.element and isinstance(d.value, cst.Attribute)
    }
    return held.pop() if definitions and len(held) == 1 and len(definitions) == 1 else None


def stop_at(
    origin: Origin, stop: Callable[[cst.Call], bool], sharded: dict[cst.Call, cst.BaseExpression]
) -> bool:
    """The origin is a call of the wrapped model, or a part of a sharded loader."""
    if isinstance(origin.node, cst.Call) and stop(origin.node):
        return True
    return origin.node in sharded and origin.cut


def rank_share(
    flow: DefUse,
    value: cst.BaseExpression,
    stop: Callable[[cst.Call], bool],
    sharded: dict[cst.Call, cst.BaseExpression],
) -> str | None:
    """What `value` is a share of, in words ("an output of the wrapped model", "this
    rank's batch"): the first whole origin of it (flow.origins) that `stop_at` takes; None
    where it has none. DP140's and rank_ratios' texts name the share so."""
    found = origins(flow, value, stop)
    share = next((o for o in found if not o.selects and stop_at(o, stop, sharded)), None)
    if share is None:
        return None
    if isinstance(share.node, cst.Call) and stop(share.node):
        return "an output of the wrapped model"
    return "this rank's batch"


def _training_loop(data: ShardDataLoaders, call: cst.Call) -> cst.For | cst.While | None:
    """The nearest loop around `call` in its function, where it trains."""
    node: cst.CSTNode | None = data.parent(call)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if isinstance(node, (cst.For, cst.While)):
            return node if loop_trains(node, data.qualified_names) else None
        node = data.parent(node)
    return None
