"""Draws given a torch.Generator of the program's (`generator=g`): alike on every rank.

DataParallel ran one process, so a generator the original program builds is seeded without
the rank (a constant, a counter, the clock). After migration every rank builds it, seeds it
the same way and draws the same numbers from it: round 24 of issue 28, TaoHuang2018/
Neighbor2Neighbor@e66389e, `get_generator()` seeds a fresh `torch.Generator()` from a
module-level counter that runs alike on every rank, and `torch.randint(..., generator=
get_generator())` draws every rank's masks alike. A draw from such a generator that is not
sized by the batch (a scalar, a fixed mask) is what DataParallel's one process drew: nothing
to do. One sized by the batch is the same class as a global-stream draw for the batch
(batch_noise.py, helper_noise.py): where those are rewritten to draw the whole global
batch's rows and keep this rank's (ddp_draw_share, which works as well with the generator:
it is alike on every rank, and draws as many numbers as the original did), so is it; else
DP006 names the generator (hazards: a draw in the loop; hazards/draws.py: in a helper).

Not proved alike, and left as before: a module that seeds a generator from something that
names the rank (`g.manual_seed(seed + args.local_rank)`): the program already draws apart
per process there (every generator of the module is then left alone, not only that one).
A draw that writes into a tensor it is given (`out=noise`) is not rewritten (the whole
batch's rows would land in the caller's tensor): DP006.
"""

from __future__ import annotations

from collections.abc import Collection

import libcst as cst

from dp2ddp.transforms._support.nodes import code_of, derived_names, nodes_of, walk

#: Names that hold or read a process's rank: a seed built from one differs per rank.
RANK_WORDS = frozenset(
    {"rank", "local_rank", "global_rank", "world_rank", "RANK", "LOCAL_RANK", "get_rank"}
)
#: Methods that seed a generator.
_SEEDERS = frozenset({"manual_seed", "seed"})
#: Keywords of a draw that say where or how it is stored, never its size.
_NOT_SIZE = frozenset({"generator", "device", "dtype", "layout", "requires_grad", "pin_memory"})
#: Attributes of a tensor that do not depend on its rows.
_NOT_ROWS = frozenset({"device", "dtype", "is_cuda", "layout"})


def given_generator(call: cst.Call) -> cst.BaseExpression | None:
    """G of a draw's `generator=G`; None where it names none (or `generator=None`: the
    process-wide stream)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "generator":
            value = arg.value
            return None if isinstance(value, cst.Name) and value.value == "None" else value
    return None


def generators_alike(module: cst.Module, text: str | None = None) -> bool:
    """Whether the generators `module` builds are alike on every rank: no `.manual_seed(...)`
    (or `.seed(...)`) call of it reads a name of RANK_WORDS. `text`: the module's source,
    where the caller holds it (a module with no `generator=` needs no walk)."""
    if "generator" not in (module.code if text is None else text):
        return False  # no draw is given a generator: nothing to ask
    for call in nodes_of(module, cst.Call):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in _SEEDERS:
            for node in walk(call):
                name = node.attr if isinstance(node, cst.Attribute) else node
                if isinstance(name, cst.Name) and name.value in RANK_WORDS:
                    return False
    return True


def alike_generator(call: cst.Call, alike: bool) -> cst.BaseExpression | None:
    """The generator a draw is given where it is alike on every rank (`alike`:
    generators_alike of its module)."""
    return given_generator(call) if alike else None


def drawn_apart(call: cst.Call, alike: bool) -> bool:
    """Whether a draw keeps to a stream of its own the batch-noise rewrite leaves alone: it
    names a generator not proved alike, or writes into a tensor it is given (`out=`)."""
    if given_generator(call) is None:
        return False  # the process-wide stream (`generator=None` too)
    return not alike or writes_out(call)


def writes_out(call: cst.Call) -> bool:
    """The draw is given `out=`."""
    return any(a.keyword is not None and a.keyword.value == "out" for a in call.args)


def batch_sized(call: cst.Call, scope: cst.CSTNode, batch: Collection[str]) -> bool:
    """Whether the draw's size follows one of `batch` (names holding a batch's rows, or a
    function's parameters): an argument of it other than its generator, device or dtype
    reads such a name, or one `scope` binds from them (derived_names: `shape = x.shape`,
    `n, c, h, w = img.shape`, `noise = torch.empty(shape)`), other than by its device or
    dtype (`x.device`). A scalar or a fixed size reads none."""
    derived = derived_names(scope, set(batch))
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in _NOT_SIZE:
            continue
        for node in walk(arg.value):
            if isinstance(node, cst.Name) and node.value in derived and _read(node, arg.value):
                return True
    return False


def _read(name: cst.Name, root: cst.BaseExpression) -> bool:
    """`name` under `root` is read as a value, not only for its device or dtype
    (`x.device`) nor as an attribute's or keyword's own name."""
    for node in walk(root):
        if isinstance(node, cst.Attribute):
            if node.attr is name:
                return False
            if node.value is name and node.attr.value in _NOT_ROWS:
                return False
        if isinstance(node, cst.Arg) and node.keyword is name:
            return False
    return True


def generator_detail(call: cst.Call) -> str:
    """DP006's detail for a draw for the batch given a generator alike on every rank."""
    generator = given_generator(call)
    assert generator is not None
    return (
        f": drawn for the batch from `{code_of(generator)}`, a generator every rank builds and "
        "seeds alike, so every rank draws the same values for its part of the batch, where "
        "DataParallel drew distinct ones for the whole batch"
    )
