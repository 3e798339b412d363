"""A batch already this rank's share, cut along the split dim by a count of the global batch.

`batch = torch.cat([data[:lpi], data_u[lpi:]])` where `data` and `data_u` are batches of a
loader the data pass shards (each rank's `ddp_per_rank_batch(B)` rows), `lpi` a count the
program meant for DataParallel's global batch: DataParallel cut the global batch at `lpi`
(`lpi` labelled rows, `B - lpi` unlabelled) and scattered the rows; each rank now cuts its
own share at `lpi` and takes all its rows labelled and none unlabelled (taufikxu/Triple-GAN@
127948d library/loss_cla.py:150, `FLAGS.num_label_per_batch`: class v3-B of validation round
6, silent). For each model call the proof settles as this rank's part (batches/proof.py),
the slices its inputs and targets went through along the split dim (flow/origins: the
steps "sliced by") of a value that is this rank's share are asked about their bound:

* proved per rank where a source of the bound is this rank's batch itself (`x.size(0) // 2`)
  or `ddp_per_rank_batch(...)`: left as it is;
* where the bound reads the value that sizes the loader the share comes from (the
  `batch_size` the data pass read per rank, `ddp_per_rank_batch(E)`, followed to `E` at the
  call the flow came through: `lpi = FLAGS.bs // 2` beside `get_iter(FLAGS.bs)`), that read
  takes this rank's part, `ddp_per_rank_batch(E)`: the count per rank, DataParallel's
  meaning (each rank cuts its share where DataParallel cut the global batch, in proportion);
* else DP047 at the slice (the rows reaching the model are not proved this rank's part of
  DataParallel's scatter): the count, its sources, and why the rows differ; left as written.
  As stop 53 s3's constant slice of a loader loop's batch (batches/beside.py), here for
  the batches the proof settles outside such loops (a generator's, a helper's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import libcst as cst

from dp2ddp.flow import DefUse, Origin, code, origins
from dp2ddp.flow.origins import argument_for
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import call_named, name_of, walk
from dp2ddp.transforms.batches.loops import PER_RANK
from dp2ddp.transforms.batches.source_syntax import binding_of
from dp2ddp.transforms.batches.unsplit import iterated_share

if TYPE_CHECKING:
    from dp2ddp.transforms.batches.proof import BatchProof

#: the slices asked about already, per module view (one answer each)
_SETTLED: WeakKeyDictionary[DefUse, set[tuple[cst.Subscript, cst.BaseExpression]]] = (
    WeakKeyDictionary()
)


def settle_cuts(
    proof: BatchProof, flow: DefUse, call: cst.Call, found: list[Origin], wrapped: set[str]
) -> None:
    """The slices along the split dim on the paths of `found` (the origins of a model call's
    inputs and targets) of a value this rank's share: per rank, rewritten, or DP047."""
    if proof._dim is None:
        return
    seen = _SETTLED.setdefault(flow, set())
    for cut, bound in _cuts_on(proof, flow, found):
        if (cut, bound) in seen:
            continue
        seen.add((cut, bound))
        if _in_loader_loop(proof, flow, cut):
            continue
        shares = [o for o in origins(flow, cut.value) if _share(proof, flow, o, wrapped)]
        if shares:
            _settle(proof, flow, call, cut, bound, shares, wrapped)


def settle_output_cuts(
    proof: BatchProof, flow: DefUse, call: cst.Call, found: list[Origin], wrapped: set[str]
) -> None:
    """The model's output cut along the split dim by a count (`logit[:n_labeled]`, the
    output bound by a name to the call or cut at it): DataParallel gathered the whole
    batch's output, so a count of the global batch cut it where the program meant; each
    rank's output holds its share, so the count per rank where it reads the size of a
    loader the inputs come from (`found`: their origins), proved per rank where it is
    read from this rank's batch, else DP047. A constant bound (`out[:16]`, a sample to
    show) is not a count of the batch: left to the rules of samples."""
    if proof._dim is None:
        return
    shares = [o for o in found if _share(proof, flow, o, wrapped)]
    if not shares:
        return
    seen = _SETTLED.setdefault(flow, set())
    for cut, bound in _output_cuts(proof, flow, call):
        if (cut, bound) in seen or _in_loader_loop(proof, flow, cut):
            continue
        seen.add((cut, bound))
        if all(o.kind == "constant" for o in origins(flow, bound)):
            continue
        _settle(proof, flow, call, cut, bound, shares, wrapped, output=True)


def _output_cuts(
    proof: BatchProof, flow: DefUse, call: cst.Call
) -> list[tuple[cst.Subscript, cst.BaseExpression]]:
    """(subscript, bound) of each slice along the split dim of the call's output: `net(x)[:n]`,
    or a read of a name the call's value is bound to (`logit = net(x)`; `logit[:n]`)."""
    held: list[cst.BaseExpression] = [call]
    assign = flow.parent(call)
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
        target = assign.targets[0].target
        if isinstance(target, cst.Name):
            for use in flow.uses(flow.scope_of(target), target.value):
                if any(d.value is call for d in flow.reaching(use)):
                    held.append(use)
    dim = proof._dim or 0
    cuts: list[tuple[cst.Subscript, cst.BaseExpression]] = []
    for value in held:
        cut = flow.parent(value)
        if not isinstance(cut, cst.Subscript) or cut.value is not value:
            continue
        element = cut.slice[dim] if dim < len(cut.slice) else None
        if element is not None and isinstance(element.slice, cst.Slice):
            bounds = (element.slice.lower, element.slice.upper)
            cuts += [(cut, b) for b in bounds if b is not None]
    return cuts


def _cuts_on(
    proof: BatchProof, flow: DefUse, found: list[Origin]
) -> list[tuple[cst.Subscript, cst.BaseExpression]]:
    """(subscript, bound) of each slice along the split dim in the expressions the paths of
    `found` go through (`torch.cat([data[:lpi], data_u[lpi:]])`: both; a walk records one
    path per source, so the expressions are read, not the paths' slice steps alone)."""
    cuts: list[tuple[cst.Subscript, cst.BaseExpression]] = []
    read: set[cst.CSTNode] = set()
    dim = proof._dim or 0
    for origin in found:
        taken = next((i for i, step in enumerate(origin.path) if step.cut or step.index), None)
        for step in origin.path[taken:] if taken is not None else ():
            node = step.node  # from the first part taken: a batch's way, not its dataset's
            if node in read or not isinstance(node, cst.BaseExpression):
                continue
            read.add(node)
            for cut in (n for n in walk(node) if isinstance(n, cst.Subscript)):
                element = cut.slice[dim] if dim < len(cut.slice) else None
                if element is not None and isinstance(element.slice, cst.Slice):
                    bounds = (element.slice.lower, element.slice.upper)
                    cuts += [(cut, b) for b in bounds if b is not None and (cut, b) not in cuts]
    return cuts


def _share(proof: BatchProof, flow: DefUse, origin: Origin, wrapped: set[str]) -> bool:
    """`origin` holds this rank's share as the program holds it in both runs of the
    migration: through a loader the data pass shards, or another module's batches told per
    rank (iterated_share). Not a split this pass plans or wrote before: placed after the
    statement that cuts, or cutting rows the loop steps through, it is not this class."""
    if origin.selects:
        return False
    if iterated_share(proof, flow, origin):
        return True
    return any(
        isinstance(step.node, (cst.Name, cst.Attribute, cst.Call)) and proof._is_loader(step.node)
        for step in origin.path
    )


def _in_loader_loop(proof: BatchProof, flow: DefUse, cut: cst.Subscript) -> bool:
    """The cut is in the body of a `for` over a loader: the data pass's chunk rules
    (DP051) and batches/beside.py's constant slices (DP047) answer there."""
    return any(
        isinstance(a, cst.For)
        and proof._inside(cut, a.body)
        and any(proof._is_loader(u) for u in proof._loop_sources(a))
        for a in flow.ancestors(cut)
    )


def _settle(
    proof: BatchProof,
    flow: DefUse,
    call: cst.Call,
    cut: cst.Subscript,
    bound: cst.BaseExpression,
    shares: list[Origin],
    wrapped: set[str],
    *,
    output: bool = False,
) -> None:
    sources = origins(flow, bound)
    if PER_RANK in proof.code(bound) or any(
        _share(proof, flow, _as_data(o), wrapped)
        or any(s.node in proof._swap or PER_RANK in s.what for s in o.path)
        for o in sources
    ):
        return  # from this rank's batch (`x.size(0) // 2`) or read per rank already
    for share in shares:
        size = _loader_size(proof, flow, share)
        if size is None:
            continue
        read = _read_of(proof, flow, bound, sources, size)
        if read is not None:
            proof._swap[read] = call_named(PER_RANK, cst.Arg(read.deep_clone()))
            proof.state.helpers.add("per_rank_batch")
            proof.record(
                read,
                f"{proof.code(read)} counts rows of the global batch that "
                f"{proof.code(cut)} cuts from this rank's share of the loader it sizes: "
                f"{PER_RANK}({proof.code(read)}), each rank cuts its share in proportion, "
                "as DataParallel cut the global batch and scattered it",
            )
            return
    told = sorted({code(o.node) for o in sources if o.kind != "constant"}) or [
        code(o.node) for o in sources
    ]
    proof._unproved.add("DP047")
    proof.warn(
        cut,
        "DP047",
        f"{proof.code(cut)} cuts this rank's share of the batch ({_source(proof, shares[0])}) "
        f"at `{proof.code(bound)}` (from {', '.join(told[:3])}), a "
        f"count not proved to be this rank's: DataParallel cut the global batch at "
        f"`{proof.code(bound)}` and scattered the rows; each rank now cuts its own share "
        f"there: of its part of the rows, `{proof.code(bound)}` fall on one side (all of "
        f"them where that reaches the part's size, none on the other), so "
        + (
            f"the rows of {proof.code(call.func)}()'s output taken there are not the ones "
            "DataParallel's gathered output gave; left as written. Where "
            if output
            else f"{proof.code(call.func)}() gets other rows, in other proportions, than "
            "DataParallel gave it; left as written. Where "
        )
        + f"`{proof.code(bound)}` counts rows of the global batch, cut at its part per rank "
        f"({PER_RANK}() of the global size it is a part of)",
    )


def _source(proof: BatchProof, share: Origin) -> str:
    """Where the share comes from, as the warning names it: `from DataLoader() at line 12`."""
    node = share.node
    what = f"{proof.code(node.func)}()" if isinstance(node, cst.Call) else code(node)
    where = proof.input_position(node)
    return f"from {what}" + (f" at line {where[0]}" if where else "")


def _as_data(origin: Origin) -> Origin:
    """The origin as a source of the data: a bound read from this rank's batch
    (`x.size(0)`) reaches it as a size, which the share test would pass over."""
    return Origin(origin.kind, origin.node, tuple(s for s in origin.path if not s.index))


def _loader_size(proof: BatchProof, flow: DefUse, share: Origin) -> cst.BaseExpression | None:
    """The global batch size the sharded loader `share` comes from was read per rank from:
    `E` of its `batch_size=ddp_per_rank_batch(E)`, followed through parameters to the
    argument of the call the flow came through."""
    loader = share.node
    if not isinstance(loader, cst.Call) or not proof.matches(loader.func, DATALOADER):
        return None
    given = [a.value for a in loader.args if a.keyword and a.keyword.value == "batch_size"]
    if not given or not isinstance(given[0], cst.Call) or name_of(given[0].func) != PER_RANK:
        return None
    if not given[0].args:
        return None
    expr = given[0].args[0].value
    for entered in reversed(share.entered()):
        if not isinstance(expr, cst.Name):
            break
        params = [
            d.target
            for d in flow.definitions(expr)
            if d.kind == "param" and isinstance(d.target, cst.Param)
        ]
        argument = None
        for callee in flow.callees(entered) if params else ():
            if params[0] in callee.params:
                argument = argument_for(entered, callee, params[0])
        if argument is None:
            break
        expr = argument
    return expr


def _read_of(
    proof: BatchProof,
    flow: DefUse,
    bound: cst.BaseExpression,
    sources: list[Origin],
    size: cst.BaseExpression,
) -> cst.BaseExpression | None:
    """The read of the same value as `size` (its text, and every source of it one of
    `size`'s) in the bound or in a binding of a name on its way (`lpi = FLAGS.bs // 2`):
    the walk records no step for an operand it passes whole."""
    text = proof.code(size)
    if isinstance(size, cst.Call):
        return None
    wanted = {id(o.node) for o in origins(flow, size)}
    held: list[cst.BaseExpression] = [bound]
    for origin in sources:
        for step in origin.path:
            if isinstance(step.node, cst.Name):
                small = binding_of(flow, step.node)
                if isinstance(small, cst.Assign) and small.value not in held:
                    held.append(small.value)
    for expr in held:
        for node in walk(expr):
            if isinstance(node, (cst.Name, cst.Attribute)) and proof.code(node) == text:
                if {id(o.node) for o in origins(flow, node)} == wanted:
                    return node
    return None
