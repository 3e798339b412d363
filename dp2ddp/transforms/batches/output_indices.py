"""An index into the wrapped model's output built from the global batch size: per rank.

`probs[j * 8]` for head j of a (heads x batch) output, the loader's batch_size 8 (the class
of soobinseo/Transformer-TTS@87bd9c9): DataParallel gathered the outputs of the whole
batch, each rank now holds those of its part, and the index runs past them (IndexError on
every rank). The size the data pass took per rank for the loader (`batch_size=
ddp_per_rank_batch(8)`) is read per rank in the index too, as in a `range()` the index is
drawn from, and in a name the loop binds once to it; a position counted over the dataset
(`len(dataset)`) cannot be: DP060. A position built from constants alone: DP123
(fixed_positions.py).

What proves a read the batch's size. A name or attribute spelled as a sharded loader's
batch_size (`args.batch_size`, `BATCH`) is that size wherever the index reads it. An integer
literal is only a number that happens to equal it: round 22 (style transfer),
diyiiyiii/Arbitrary-Style-Transfer-via-Multi-Adaptation-Network@e98469d, whose encoder
returns a list of feature levels and whose unused loaders have batch_size=1, had
`Ics_feats[-1]` and `for j in range(1, 5)` made `Ics_feats[-ddp_per_rank_batch(1)]` and
`range(ddp_per_rank_batch(1), 5)`; with batch_size=4 and 2 ranks `feats[4]` became
`feats[2]` and `range(4)` `range(2)`: another loss on every rank, nothing said. So a
literal is read per rank only in the index of an output proved laid out in blocks of the
batch's rows: some index of that output in the loop multiplies a counter by the batch size
(`probs[j * 8]`, `probs[8 * h + i]`, or by its name), a stride of the global batch's rows.
There its other literal reads of that size (`probs[0:8]`, the `range(8)` of `probs[h * 8 +
i]`) are the same block. Elsewhere the literal is left as written and not said: a bare
index or a counter alone (`feats[4]`, `for j in range(4): feats[j]`) is an item of a list
or tuple output as often as a row (fixed_positions.py leaves them alike), and where it was
a row of the batch the rank's part is shorter, so the read fails loudly (IndexError) rather
than silently; a slice from 0 to it (`out[0:8]`) takes this rank's rows, all of its part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import (
    ModuleNodes,
    call_named,
    counts,
    name_of,
    target_names,
    walk,
)
from dp2ddp.transforms.analysis.wrap_calls import own_functions_that_wrap, wrapper_results
from dp2ddp.transforms.batches.fixed_positions import iterated_outputs, warn_fixed_positions
from dp2ddp.transforms.batches.loops import PER_RANK
from dp2ddp.transforms.batches.returned_wraps import headed_outputs

if TYPE_CHECKING:
    from dp2ddp.transforms.batches import ShardBatches

#: The global sizes of the loaders sharded here (their code), and their datasets' code.
_Sized = tuple[set[str], set[str]]


def plan_output_indices(proof: ShardBatches, nodes: ModuleNodes) -> None:
    """Read per rank the global batch sizes an index into a wrapped model's output reads,
    in a training loop (the module docstring)."""
    if proof.state.options.per_process_batch or proof._dim != 0:
        return  # (along another dim, the output's first positions are not the batch's)
    sized = _sizes(proof)
    if not sized[0]:
        return
    module = proof._module
    assert module is not None
    # also a model the program's wrapping function returned (`model = generate_model()`)
    wrappers = own_functions_that_wrap(module, proof._is_dp) | {*proof.state.facts.wrap_functions}
    built = wrapper_results(module, proof, frozenset(wrappers), proof._is_dp)
    for call in nodes.of(cst.Call):
        func = call.func  # `m.forward(x)` calls the wrap as `m(x)` does
        if isinstance(func, cst.Attribute) and func.attr.value == "forward":
            func = func.value
        called = proof.code(func)
        if (
            called not in proof.state.wrapped
            and called not in built.spelled
            and not (isinstance(func, cst.Name) and built.holds(func, lambda: view(module)))
        ):
            continue
        loop = proof._training_loop(lambda: view(module), call)
        assign = proof.parent(call)
        if loop is None or not isinstance(assign, cst.Assign) or assign.value is not call:
            continue
        outputs = {n for t in assign.targets for n in target_names(t.target)}
        outputs |= headed_outputs(loop.body, outputs)
        outputs |= iterated_outputs(loop.body, outputs)
        indexed = [
            node
            for node in walk(loop.body)
            if isinstance(node, cst.Subscript)
            and isinstance(node.value, cst.Name)
            and node.value.value in outputs
            and node.slice
        ]
        strided = {
            node.value.value
            for node in indexed
            if isinstance(node.value, cst.Name)
            and _strided(proof, _parts(node.slice[0].slice, loop), sized[0])
        }
        for node in indexed:
            assert isinstance(node.value, cst.Name)
            laid_out = node.value.value in strided
            _index_per_rank(proof, sized, node, node.slice[0].slice, loop, call, laid_out)


def _sizes(proof: ShardBatches) -> _Sized:
    """The code of the global sizes the data pass read per rank at this module's loaders
    (`batch_size=ddp_per_rank_batch(8)`: "8"), and of those loaders' datasets."""
    sizes: set[str] = set()
    datasets: set[str] = set()
    for call in proof._loader_calls:
        given = [a.value for a in call.args if a.keyword and a.keyword.value == "batch_size"]
        if given and isinstance(given[0], cst.Call) and name_of(given[0].func) == PER_RANK:
            if given[0].args:
                sizes.add(proof.code(given[0].args[0].value))
            first = [a.value for a in call.args if a.keyword is None][:1]
            first += [a.value for a in call.args if a.keyword and a.keyword.value == "dataset"]
            datasets |= {proof.code(d) for d in first}
    return sizes, datasets


def _parts(index: cst.BaseSlice, loop: cst.For | cst.While) -> list[cst.BaseExpression]:
    """The expressions `index` reads: the index, or a slice's bounds, and the value of each
    name in them the loop binds once (`idx = j * 8`, then `probs[idx]`)."""
    parts: list[cst.BaseExpression] = (
        [index.value]
        if isinstance(index, cst.Index)
        else [b for b in (index.lower, index.upper) if b is not None]
        if isinstance(index, cst.Slice)
        else []
    )
    bound: dict[str, list[cst.BaseExpression]] = {}
    for node in walk(loop.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, cst.Name):
                bound.setdefault(target.value, []).append(node.value)
    return parts + [
        values[0]
        for n in [m for part in parts for m in walk(part)]
        if isinstance(n, cst.Name) and len(values := bound.get(n.value, [])) == 1
    ]


def _strided(proof: ShardBatches, parts: list[cst.BaseExpression], sizes: set[str]) -> bool:
    """Some part multiplies a value that is no literal (a counter, `j * 8`) by a global
    batch size: a stride of the global batch's rows."""
    for part in parts:
        for node in walk(part):
            if not (
                isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply)
            ):
                continue
            for size, other in ((node.left, node.right), (node.right, node.left)):
                if proof.code(size) in sizes and not isinstance(other, cst.Integer):
                    return True
    return False


def _size_reads(
    proof: ShardBatches, expr: cst.BaseExpression, sizes: set[str], laid_out: bool
) -> list[cst.BaseExpression]:
    """The reads in `expr` spelled as a global batch size: a name or an attribute (not the
    head of a longer attribute), an integer literal only where `laid_out`."""
    return [
        n
        for n in walk(expr)
        if isinstance(n, (cst.Name, cst.Attribute, cst.Integer))
        and (laid_out or not isinstance(n, cst.Integer))
        and proof.code(n) in sizes
        and not isinstance(proof.parent(n), cst.Attribute)
    ]


def _index_per_rank(
    proof: ShardBatches,
    sized: _Sized,
    subscript: cst.Subscript,
    index: cst.BaseSlice,
    loop: cst.For | cst.While,
    call: cst.Call,
    laid_out: bool,
) -> None:
    """The reads of a global batch size in `index` (also through a name the loop binds
    once, and in the `range()` its loop variables come from) take this rank's part; a
    position counted over the dataset (`len(dataset)`) cannot be: DP060. `laid_out`: the
    output is proved laid out in blocks of the batch's rows, so a literal of the batch's
    size is one (the module docstring)."""
    sizes, datasets = sized
    parts = _parts(index, loop)
    reads = [n for part in parts for n in _size_reads(proof, part, sizes, laid_out)]
    variables = {n.value for part in parts for n in walk(part) if isinstance(n, cst.Name)}
    for ancestor in proof._ancestors_to(subscript, None):
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef)):
            break
        fors = (
            [ancestor]
            if isinstance(ancestor, cst.For)
            else [ancestor.for_in]
            if isinstance(ancestor, (cst.ListComp, cst.GeneratorExp, cst.SetComp))
            else []
        )
        for inner in fors:
            if target_names(inner.target) & variables and counts(inner.iter):
                reads += _size_reads(proof, inner.iter, sizes, laid_out)
    counted = [
        n
        for part in parts
        for n in walk(part)
        if isinstance(n, cst.Call)
        and name_of(n.func) == "len"
        and n.args
        and (
            proof.code(n.args[0].value) in datasets
            or proof.code(n.args[0].value).endswith(".dataset")
        )
    ]
    if counted:
        proof.warn(
            subscript,
            "DP060",
            f"{proof.code(subscript)} indexes {proof.code(call.func)}()'s output at a "
            f"position counted over the dataset ({proof.code(counted[0])}): each rank "
            "holds the output of its part of the batch only",
        )
        return
    if not reads:
        warn_fixed_positions(proof, subscript, index, call)
    for read in reads:
        if read in proof._swap or _read_per_rank(proof, read):
            continue
        proof._swap[read] = call_named(PER_RANK, cst.Arg(read.deep_clone()))
        proof.state.helpers.add("per_rank_batch")
        proof.record(
            read,
            f"{proof.code(subscript)} indexes {proof.code(call.func)}()'s output by the "
            f"global batch size {proof.code(read)}: each rank holds the output of its "
            f"part, so the index reads {PER_RANK}({proof.code(read)})",
        )


def _read_per_rank(proof: ShardBatches, read: cst.CSTNode) -> bool:
    """`read` is already ddp_per_rank_batch's argument: the data pass read the count of
    a loop over the batch's samples per rank (data/batch_shapes.py, `for k in
    range(B)`), and reading it per rank again would halve it twice."""
    arg = proof.parent(read)
    call = proof.parent(arg) if isinstance(arg, cst.Arg) else None
    return isinstance(call, cst.Call) and name_of(call.func) == PER_RANK
