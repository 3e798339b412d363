"""Noise drawn in a training loop for the global batch: `z = torch.randn(batch_size, nz)`.

DataParallel ran one process: it drew the batch's noise once, `batch_size` distinct rows,
and scattered them with the batch. Under torchrun every rank runs the draw; seeded alike
(a fixed seed, the usual case), every rank draws the same rows and pairs its own samples
with the same codes; seeded apart, each rank's rows are its own but still `batch_size` of
them, twice the per-rank batch. Both are wrong in the same way: the draw is not the global
batch's.

The draw is recognised when its first dimension is written as a DataLoader's global batch
size (the `batch_size=` of a loader of the module, as written, e.g. `args.batch_size`):
then the shared_draws pass makes it `ddp_draw_share(lambda: torch.randn(batch_size, nz))`,
which draws the whole global batch's noise on rank 0's stream (every rank alike, as
DataParallel's one process drew it) and keeps this rank's rows (ddp_rank_slice), where the
data pass sharded that loader (its batch is then `ddp_per_rank_batch(batch_size)`). Any
other draw in a training loop keeps DP006 (hazards), which says what to do.

A draw sized by the loop's own batch (`torch.randn(real.size(0), nz)`: this rank's batch
once the loader is sharded) is drawn the same way for `size * WORLD_SIZE` rows. Every rank's
batch has the same size under a DistributedSampler (it pads), so the rows are the global
batch's and each rank's are its own; where the sizes differ (a ragged last batch of a
sampler shard) the ranks' draws can share a row, never all of them. Each rank keeps the
contiguous part, as DataParallel's scatter did: with a strided sampler the rows meet other
samples of the batch than in the original (the same rows; verify, which hands each rank its
contiguous part, finds the updates equal).

The other way round, a fixed batch fetched once outside any loop (`fixed_x, _ =
next(iter(loader))`, for sample image grids or debugging) was the global batch in the
original; from the sharded loader it would be this rank's share (the saved grid holds half
the images). It becomes `ddp_whole_batch(loader, batch_size)`: the loader's first global
batch, the same on every rank (no collective).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from dp2ddp.flow import DefUse
from dp2ddp.transforms._support.names import DATALOADER
from dp2ddp.transforms._support.nodes import code_of, name_of, nodes_of, target_names, walk
from dp2ddp.transforms.analysis.filled_draws import FILLED_LIKE, filled_like
from dp2ddp.transforms.analysis.handed_loaders import (
    FactorySlots,
    handed_loader,
    returned_loaders,
)
from dp2ddp.transforms.analysis.torch_generators import drawn_apart

Matches = Callable[[cst.CSTNode, frozenset[str]], bool]
_Binding = cst.Assign | cst.AnnAssign | cst.AugAssign

#: The data pass's per-rank batch size: `ddp_per_rank_batch(global)`.
PER_RANK_BATCH = "ddp_per_rank_batch"
#: The helper that draws the global batch's values and keeps this rank's part.
DRAW_SHARE = "ddp_draw_share"
#: The helper that fetches a sharded loader's first global batch whole.
WHOLE_BATCH = "ddp_whole_batch"
#: The helper that reads a sharded loader's whole dataset in global batches.
WHOLE_LOADER = "ddp_whole_loader"
#: The fetcher constructor's loader of a fixed sample batch (analysis/fixed_fetch.py).
UNSHARDED_LOADER = "ddp_unsharded_loader"
#: Draws whose first dimension is given as a size: (size, or the positional index of a
#: size tuple, or -1: the dimensions themselves).
_TORCH_SIZED = frozenset({"torch.randn", "torch.rand"})
_NUMPY_DIMS = frozenset({"numpy.random.randn", "numpy.random.rand"})
_NUMPY_SIZED = {
    "numpy.random.normal": 2,
    "numpy.random.uniform": 2,
    "numpy.random.standard_normal": 0,
    "numpy.random.random": 0,
    "numpy.random.random_sample": 0,
    "torch.randint": 2,
}
#: Draws shaped like a tensor they are given (`torch.rand_like(X)`: ncsn's dequantisation
#: noise, ermongroup/ncsn@7f27f4a): sized by that tensor's batch.
LIKE_DRAWS = frozenset({"torch.rand_like", "torch.randn_like", "torch.randint_like"})
#: What a `d.sample(shape)` / `d.rsample(shape)` of a `torch.distributions` object is
#: named as among a draw's qualified names (its own are the receiver's, unknown to libcst):
#: its first dimension is the first of `sample_shape` (GAN_stability's
#: `zdist.sample((batch_size,))`, class G1).
DISTRIBUTION_SAMPLE = "torch.distributions.Distribution.sample"
DISTRIBUTION_METHODS = frozenset({"sample", "rsample"})
BATCH_DRAWS = (
    _TORCH_SIZED
    | _NUMPY_DIMS
    | frozenset(_NUMPY_SIZED)
    | LIKE_DRAWS
    | {DISTRIBUTION_SAMPLE, FILLED_LIKE}
)
#: The helper that shapes a like-draw's tensor as the global batch.
GLOBAL_LIKE = "ddp_global_like"


def like_argument(call: cst.Call, names: Iterable[str]) -> cst.BaseExpression | None:
    """The tensor a draw is shaped like: a `*_like` draw's first argument (or `input=`);
    X of a sized draw given X's whole shape (`torch.randn(*X.shape)`, princeton-vl/
    RAFT@3fa0bb0's image noise, `torch.rand(X.size())`, `torch.randn(size=X.shape)`)."""
    names = set(names)
    if FILLED_LIKE in names:
        return filled_like(call)  # `torch.FloatTensor(x.size()).normal_()`: filled_draws.py
    if names & _TORCH_SIZED:
        given = [a for a in call.args if a.keyword is None or a.keyword.value == "size"]
        if len(given) != 1 or given[0].star not in ("", "*"):
            return None
        shape = given[0].value
        if isinstance(shape, cst.Call) and not shape.args:  # X.size()
            shape = shape.func
        if isinstance(shape, cst.Attribute) and shape.attr.value in ("shape", "size"):
            if (shape.attr.value == "size") == (shape is given[0].value):
                return None  # `X.size` uncalled, `X.shape()`
            return shape.value
        return None
    if not names & LIKE_DRAWS or any(a.star for a in call.args):
        return None
    for arg in call.args:
        if arg.keyword is None:
            return arg.value
        if arg.keyword.value == "input":
            return arg.value
    return None


def first_dimension(call: cst.Call, names: Iterable[str]) -> cst.BaseExpression | None:
    """The expression a draw's first dimension is written as; None where not known."""
    names = set(names)
    if names & LIKE_DRAWS or like_argument(call, names) is not None:
        return None  # no size written: shaped like a tensor (like_argument)
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if any(a.star for a in call.args):
        return None
    keyword = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    size: cst.BaseExpression | None = None
    if DISTRIBUTION_SAMPLE in names:
        size = keyword.get("sample_shape") or (positional[0] if positional else None)
        if (  # torch.Size([batch_size]): its one argument is the shape
            isinstance(size, cst.Call)
            and name_of(size.func) == "Size"
            and len(size.args) == 1
            and size.args[0].keyword is None
        ):
            size = size.args[0].value
        if not isinstance(size, (cst.Tuple, cst.List)):
            return None  # an empty or unknown sample_shape: no batch dimension written
    elif names & _TORCH_SIZED:
        size = keyword.get("size") or (positional[0] if positional else None)
    elif names & _NUMPY_DIMS:
        size = positional[0] if positional else None
    else:
        index = next((_NUMPY_SIZED[n] for n in names if n in _NUMPY_SIZED), None)
        if index is None:
            return None
        size = keyword.get("size") or (positional[index] if len(positional) > index else None)
        if "torch.randint" in names and size is None and len(positional) == 2:
            size = positional[1]  # torch.randint(high, size)
    if isinstance(size, (cst.Tuple, cst.List)):
        if not size.elements or isinstance(size.elements[0], cst.StarredElement):
            return None
        return size.elements[0].value
    return size


def distribution_receivers(
    module: cst.Module, qualified_names: Callable[[cst.CSTNode], set[str]]
) -> set[str]:
    """What `torch.distributions` objects are bound to in `module` (`zdist`,
    `self.zdist`): a name or attribute every assignment of which in the module is a call
    of a `torch.distributions` class, or of a function of the module every `return` of
    which is one (`zdist = get_zdist("gauss", 2)`). A binding also assigned anything else
    is not one: its `.sample(...)` may be any object's (a dataset's, a model's)."""
    makers: set[str] = set()
    bindings = nodes_of(module, (cst.Assign, cst.AnnAssign, cst.AugAssign))
    called = _called_functions(bindings)  # only those are walked (the module's index)
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value in called:
            returns = [n for n in walk(statement.body) if isinstance(n, cst.Return)]
            if returns and all(
                r.value is not None and _makes_distribution(r.value, qualified_names, set())
                for r in returns
            ):
                makers.add(statement.name.value)
    verdict: dict[str, bool] = {}
    for node in bindings:
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
            value: cst.BaseExpression | None = node.value
        elif isinstance(node, cst.AnnAssign):
            targets, value = [node.target], node.value
        elif isinstance(node, cst.AugAssign):
            targets, value = [node.target], None
        else:
            continue
        for target in targets:
            if not isinstance(target, (cst.Name, cst.Attribute)):
                for leaf in walk(target):  # `a, zdist = ...`: not followed
                    if isinstance(leaf, (cst.Name, cst.Attribute)):
                        verdict[code_of(leaf)] = False
                continue
            made = value is not None and _makes_distribution(value, qualified_names, makers)
            key = code_of(target)
            verdict[key] = verdict.get(key, True) and made
    return {key for key, made in verdict.items() if made}


def _makes_distribution(
    value: cst.BaseExpression,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    makers: set[str],
) -> bool:
    """`value` is a call of a `torch.distributions` class or of one of `makers`."""
    if not isinstance(value, cst.Call):
        return False
    if isinstance(value.func, cst.Name) and value.func.value in makers:
        return True
    return any(n.startswith("torch.distributions.") for n in qualified_names(value.func))


def is_distribution_draw(
    call: cst.Call, receivers: set[str], qualified_names: Callable[[cst.CSTNode], set[str]]
) -> bool:
    """`d.sample(...)` / `d.rsample(...)` of a `torch.distributions` object: `d` one of
    `receivers` (distribution_receivers) or a distribution built in place
    (`Normal(0, 1).sample((n,))`)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in DISTRIBUTION_METHODS:
        return False
    owner = func.value
    if func.attr.value == "rsample":  # a reparameterised draw: torch.distributions' own name,
        return True  # of any object (a distribution another method built and returned:
    # round 35, lyndonzheng/Pluralistic-Inpainting@034a758's `p_distribution.rsample()`)
    if isinstance(owner, (cst.Name, cst.Attribute)):
        return code_of(owner) in receivers
    return _makes_distribution(owner, qualified_names, set())


@dataclass
class BatchSizes:
    """The DataLoaders of a module and their global batch sizes, as code."""

    #: the `batch_size` of every DataLoader, as written (`ddp_per_rank_batch(x)` -> x)
    written: set[str] = field(default_factory=set)
    #: what a loader is bound to (`loader`, `self.train_loader`) -> its global batch size,
    #: for the loaders the data pass made per rank (`batch_size=ddp_per_rank_batch(x)`)
    sharded: dict[str, str] = field(default_factory=dict)
    #: binding -> the statement that binds it (where its size expression is valid)
    sites: dict[str, cst.Assign] = field(default_factory=dict)
    #: every loader binding -> its global batch size, sharded or not
    bound: dict[str, str] = field(default_factory=dict)
    #: bindings of a loader a factory returns (`loader = make_loader()`, of this module or
    #: of another that shards it: returned_loaders) -> whether it is sharded. A loop over a
    #: sharded one draws this rank's batch's noise for `x.size(0)` rows (stop 55 class
    #: r2-B); no batch size is named here to compare a draw's first dimension with
    returned: dict[str, bool] = field(default_factory=dict)

    def per_rank(self) -> dict[str, str]:
        """The sharded loaders, returned ones included: a loop over one has this rank's
        batches (their size is known only for those bound here)."""
        return {**{k: "" for k, sharded in self.returned.items() if sharded}, **self.sharded}

    def every(self) -> dict[str, str]:
        """Every loader binding, returned ones included, sharded or not."""
        return {**dict.fromkeys(self.returned, ""), **self.bound}


def _called_functions(bindings: Iterable[cst.CSTNode]) -> set[str]:
    """The names `x = f(...)` bindings call: the only module functions whose returns can
    bind a value to a name."""
    called: set[str] = set()
    for node in bindings:
        value = cast(_Binding, node).value
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            called.add(value.func.value)
    return called


def global_batch_sizes(
    module: cst.Module, matches: Matches, factories: FactorySlots | None = None
) -> BatchSizes:
    """The module's DataLoaders' batch sizes (BatchSizes); `factories`: other modules'
    functions returning a loader they shard, where in what they return
    (handed_loaders.returned_factories of ProgramLoaders.exported)."""
    found = BatchSizes()
    # each call tested once (an assignment's value is also a call of the walk below)
    made = frozenset(id(c) for c in nodes_of(module, cst.Call) if matches(c.func, DATALOADER))
    found.returned = returned_loaders(module, matches, factories or {}, made)
    # latest first, so that a binding's first loader in the source is the one kept (an
    # assignment holds no other)
    for node in reversed(nodes_of(module, (cst.Assign, cst.Call))):
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            call = node.value
            binding: str | None = code_of(node.targets[0].target)
        elif isinstance(node, cst.Call):
            call, binding = node, None
        else:
            continue
        if not isinstance(call, cst.Call) or id(call) not in made:
            continue
        value = next(
            (
                a.value
                for a in call.args
                if a.keyword is not None and a.keyword.value == "batch_size"
            ),
            None,
        )
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if value is None and len(positional) > 1:
            value = positional[1]
        if value is None:
            continue
        per_rank = (
            isinstance(value, cst.Call)
            and name_of(value.func) == PER_RANK_BATCH
            and len(value.args) == 1
        )
        if per_rank:
            assert isinstance(value, cst.Call)
            value = value.args[0].value
        found.written.add(code_of(value))
        if binding is not None:
            found.bound[binding] = code_of(value)
        if per_rank and binding is not None:
            assert isinstance(node, cst.Assign)
            found.sharded[binding] = code_of(value)
            found.sites[binding] = node
    return found


def loops_over(loop: cst.For, loaders: dict[str, str], flow: DefUse | None = None) -> str | None:
    """The global batch size of the loader (of `loaders`: binding -> size) `loop` goes
    through (`for x in loader`, `enumerate(loader)`, `tqdm(self.loader)`); given the
    module's `flow`, also a loader handed to the loop's function (handed_loader); None where
    it goes through none."""
    stack: list[cst.CSTNode] = [loop.iter]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Name, cst.Attribute)):
            size = loaders.get(code_of(node))
            if size is not None:
                return size
        stack.extend(node.children)
    return None if flow is None else handed_loader(loop, loaders, flow)


def is_batch_noise(
    call: cst.Call, names: Iterable[str], sizes: set[str], alike: bool = False
) -> bool:
    """A draw whose first dimension is one of `sizes`, from the process-wide stream or, with
    `alike`, a generator alike on every rank (torch_generators.drawn_apart)."""
    if drawn_apart(call, alike):
        return False
    first = first_dimension(call, names)
    return first is not None and code_of(first) in sizes


def fixed_batch_loader(
    call: cst.Call, sizes: BatchSizes
) -> tuple[cst.BaseExpression, str, cst.Assign] | None:
    """`next(iter(loader))` of a sharded loader: (the loader, its global batch size, the
    statement that builds it)."""
    if name_of(call.func) != "next" or len(call.args) != 1:
        return None
    inner = call.args[0].value
    if not (
        isinstance(inner, cst.Call)
        and name_of(inner.func) == "iter"
        and len(inner.args) == 1
        and not inner.args[0].star
    ):
        return None
    loader = inner.args[0].value
    size = sizes.sharded.get(code_of(loader))
    return None if size is None else (loader, size, sizes.sites[code_of(loader)])


def sized_by_batch(first: cst.BaseExpression, loop: cst.For, draw: cst.CSTNode) -> bool:
    """`first` is the size of a batch of the loop (this rank's batch, once its loader is
    sharded): `x.size(0)`, `x.size()[0]`, `x.shape[0]`, `len(x)` of a name holding its rows
    where `draw` runs (batch_rows), or a name a statement of the loop's body binds to one
    of those before `draw` (`b_size = real_cpu.size(0)`, the PyTorch DCGAN tutorial's and
    JamesHagerty1/learn-GAN@bfd7ee9's; stop 55 class r2-B): size_names."""
    if isinstance(first, cst.Name):
        return first.value in size_names(loop, draw)
    size_of = batch_of_size(first)
    return size_of in target_names(loop.target) or size_of in batch_rows(loop, draw)


def size_names(loop: cst.For, draw: cst.CSTNode) -> set[str]:
    """Names holding the size of a batch of `loop` where `draw` runs: bound by a statement
    of the loop's own body (not under a condition or an inner loop: it runs every step,
    before `draw`) to `x.size(0)` (batch_of_size) of a name holding the batch's rows
    there, or first of an unpacked `x.shape` / `x.size()` (batch_of_shape). Any other
    binding of the name on the way (an `if` may rebind it) drops it."""
    sizes: set[str] = set()
    top = {id(s) for s in loop.body.body}
    for node in walk(loop.body, skip_scopes=True):
        if node is draw:
            break
        if isinstance(node, cst.AugAssign | cst.AnnAssign):
            sizes -= target_names(node.target)
        if not isinstance(node, cst.Assign):
            continue
        if any(inner is draw for inner in walk(node.value)):
            break
        names = set().union(*(target_names(t.target) for t in node.targets))
        sizes -= names
        statement_is_top = any(  # a simple statement of the loop's own body, not nested
            id(s) in top and isinstance(s, cst.SimpleStatementLine) and node in s.body
            for s in loop.body.body
        )
        if not statement_is_top or len(node.targets) != 1:
            continue
        target = node.targets[0].target
        if isinstance(target, cst.Name) and batch_of_size(node.value) in batch_rows(loop, node):
            sizes |= names
        first = _first_unpacked(target)
        if first is not None and batch_of_shape(node.value) in batch_rows(loop, node):
            sizes.add(first)  # `B, T, N = batch_x.shape`: B, the batch's rows
    return sizes


def _first_unpacked(target: cst.BaseAssignTargetExpression) -> str | None:
    """The name `B, T, N = ...` (or `[B, T, N] = ...`) binds first; None otherwise."""
    if not isinstance(target, (cst.Tuple, cst.List)) or not target.elements:
        return None
    head = target.elements[0]
    if isinstance(head, cst.StarredElement) or not isinstance(head.value, cst.Name):
        return None
    return head.value.value


def batch_of_shape(whole: cst.BaseExpression) -> str | None:
    """The name whose whole shape `whole` is: `x.shape`, `x.size()` -> "x" (unpacked, its
    first element is the batch's size: ModernTCN's imputation `B, T, N = batch_x.shape`
    before `mask = torch.rand((B, T, N))`, luodhhh/ModernTCN@56a9a2c, stop 56 class v2-B);
    None for anything else."""
    if isinstance(whole, cst.Call) and not whole.args and isinstance(whole.func, cst.Attribute):
        if whole.func.attr.value == "size" and isinstance(whole.func.value, cst.Name):
            return whole.func.value.value
        return None
    if (
        isinstance(whole, cst.Attribute)
        and whole.attr.value == "shape"
        and isinstance(whole.value, cst.Name)
    ):
        return whole.value.value
    return None


def batch_of_size(first: cst.BaseExpression) -> str | None:
    """The name whose batch size `first` is: `x.size(0)`, `x.size()[0]`, `x.shape[0]`,
    `len(x)` -> "x"; None for anything else."""
    batch: cst.BaseExpression | None = None
    if isinstance(first, cst.Call) and len(first.args) == 1:
        argument = first.args[0].value
        if name_of(first.func) == "len":
            batch = argument
        elif (
            isinstance(first.func, cst.Attribute)
            and first.func.attr.value == "size"
            and isinstance(argument, cst.Integer)
            and argument.value == "0"
        ):
            batch = first.func.value
    elif isinstance(first, cst.Subscript) and len(first.slice) == 1:
        index = first.slice[0].slice
        if (
            isinstance(index, cst.Index)
            and isinstance(index.value, cst.Integer)
            and index.value.value == "0"
        ):
            owner = first.value
            if isinstance(owner, cst.Attribute) and owner.attr.value == "shape":
                batch = owner.value
            elif (
                isinstance(owner, cst.Call)
                and not owner.args
                and isinstance(owner.func, cst.Attribute)
                and owner.func.attr.value == "size"
            ):
                batch = owner.func.value
    return batch.value if isinstance(batch, cst.Name) else None


def per_rank_noise(
    call: cst.Call,
    names: Iterable[str],
    loop: cst.For,
    loaders: dict[str, str],
    flow: DefUse | None = None,
    alike: bool = False,
    fed: bool = False,
) -> bool:
    """A draw sized by a batch of `loop`, a loop over one of `loaders` (or one handed to its
    function: loops_over with `flow`; or, `fed`, a loader other modules hand it); not one
    drawn apart (is_batch_noise's `alike`)."""
    if drawn_apart(call, alike):
        return False
    like = like_argument(call, names)
    first = first_dimension(call, names) if like is None else None
    if like is not None:  # `torch.rand_like(x)` of a batch the loop's target binds
        sized = isinstance(like, cst.Name) and like.value in batch_rows(loop, call)
    else:
        sized = first is not None and sized_by_batch(first, loop, call)
    return sized and (fed or loops_over(loop, loaders, flow) is not None)


def batch_rows(loop: cst.For, before: cst.CSTNode) -> set[str]:
    """Names holding the rows of a batch of `loop` where `before` runs: its target's, and
    those its body binds before `before` (in order, one pass) by moving or unpacking them:
    `x = x.cuda()`, `a, b = blob`, `a, b, f = [x.cuda() for x in blob]` (RAFT's images from
    a loader's collated tuple). A name bound otherwise there is no longer one."""
    rows = target_names(loop.target)
    whole = _whole_batch(loop)
    for node in walk(loop.body, skip_scopes=True):
        if node is before:
            break
        if not isinstance(node, cst.Assign) or len(node.targets) != 1:
            continue
        if any(inner is before for inner in walk(node.value)):
            break  # `x = x + torch.randn(*x.shape)`: the draw reads x before the binding
        target, value = node.targets[0].target, node.value
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
            inner = value.for_in
            each = target_names(inner.target)
            if inner.inner_for_in is None and not inner.ifs and _moved(value.elt) in each:
                value = inner.iter
        names = target_names(target)
        if _moved(value, whole) in rows and isinstance(target, (cst.Name, cst.Tuple, cst.List)):
            rows |= names
        else:
            rows -= names
    return rows


def _moved(value: cst.BaseExpression, whole: str | None = None) -> str | None:
    """X of `X`, `X.cuda()`, `X.to(device)`, `X.float()` (a move or cast keeps the rows);
    also `whole[0].to(device)` of the loop's whole collated batch `whole` (`for i, data in
    enumerate(loader)`: `real_cpu = data[0].to(device)`, the DCGAN tutorial's images): an
    item of the loader's tuple, whose rows are the batch's."""
    while (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in _ROW_KEEPING
    ):
        value = value.func.value
    if (
        whole is not None
        and isinstance(value, cst.Subscript)
        and isinstance(value.value, cst.Name)
        and value.value.value == whole
        and len(value.slice) == 1
        and isinstance(index := value.slice[0].slice, cst.Index)
        and isinstance(index.value, cst.Integer)
    ):
        return whole
    return value.value if isinstance(value, cst.Name) else None


def _whole_batch(loop: cst.For) -> str | None:
    """The name the loop binds a loader's whole collated batch to: `for data in loader`,
    `for i, data in enumerate(loader)` (None where the target unpacks the batch)."""
    target: cst.BaseExpression = loop.target
    if (
        isinstance(target, cst.Tuple)
        and len(target.elements) == 2
        and iterated_in(loop) is not loop.iter
    ):
        target = target.elements[1].value
    return target.value if isinstance(target, cst.Name) else None


_ROW_KEEPING = frozenset({"cuda", "to", "cpu", "float", "double", "half", "long", "detach"})


#: Methods a loop that gathers a fixed batch calls on what it gathers (lists, tensors):
#: none of them reaches a model, a loss or an optimizer.
GATHER_METHODS = frozenset(
    "append extend insert size numel dim to cpu cuda numpy item tolist view reshape clone "
    "detach float long int half contiguous unsqueeze squeeze".split()
)
#: Builtins such a loop calls.
GATHER_BUILTINS = frozenset(
    "len min max sum abs list tuple dict range enumerate zip next iter int float print".split()
)


def gathers_only(
    root: cst.CSTNode,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    *,
    returns: bool = False,
) -> bool:
    """Every call under `root` is a builtin that computes or iterates (`len`, `next`,
    `iter`), a function of torch's (not torch.distributed's), or a method that collects
    or reshapes (`xs.append(x)`, `x.size(0)`, `x.to(device)`); and nothing under it
    yields or returns from inside (a generator or a `return batch` hands the batches on,
    to a training loop as likely as not). Shown so, a loop over a loader under `root`
    only reads samples: it trains nothing, and what it reads is what the original read,
    the global batches of the whole dataset. With `returns`, `root` is a function's body
    and may return what it gathered (the caller is then judged where it calls it)."""
    for node in walk(root):
        if isinstance(node, (cst.Yield, cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            return False
        if isinstance(node, cst.Return) and not returns:
            return False
        if not isinstance(node, cst.Call):
            continue
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in GATHER_METHODS:
            continue
        names = qualified_names(func)
        if isinstance(func, cst.Name) and func.value in GATHER_BUILTINS:
            if names <= {f"builtins.{func.value}"}:
                continue
            return False
        if names and all(
            n.startswith("torch.") and not n.startswith("torch.distributed") for n in names
        ):
            continue
        return False
    return True


def ends_with_break(loop: cst.For | cst.While) -> bool:
    """A `break` of `loop` itself (not of a loop inside it) in its body: the loop stops
    when it has what it came for, not at the end of the loader."""
    stack: list[cst.CSTNode] = [loop.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Break):
            return True
        if isinstance(node, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef)):
            continue
        stack.extend(node.children)
    return False


def iterated_argument(call: cst.Call) -> cst.BaseExpression | None:
    """`iter(x)` -> x."""
    if (
        name_of(call.func) == "iter"
        and isinstance(call.func, cst.Name)
        and len(call.args) == 1
        and call.args[0].keyword is None
        and not call.args[0].star
    ):
        return call.args[0].value
    return None


def iterated_in(loop: cst.For) -> cst.BaseExpression:
    """What a `for` loop goes through: `loader` of `for b in loader` and of `for i, b in
    enumerate(loader)`."""
    iterated = loop.iter
    if (
        isinstance(iterated, cst.Call)
        and isinstance(iterated.func, cst.Name)
        and iterated.func.value == "enumerate"
        and iterated.args
        and iterated.args[0].keyword is None
    ):
        return iterated.args[0].value
    return iterated


def reads_only_samples(
    function: cst.FunctionDef, qualified_names: Callable[[cst.CSTNode], set[str]]
) -> dict[int, str]:
    """The parameters (position -> name) of a module function that reads samples from
    what it is given and does nothing else with it (GAN_stability's `get_nsamples(loader,
    n)`: `next(iter(loader))` until it has n): the function trains nothing
    (gathers_only), and the parameter is only iterated, by `iter(p)` or `for ... in p`
    (`enumerate(p)`), never rebound. Empty for any other function."""
    if function.decorators or not gathers_only(function.body, qualified_names, returns=True):
        return {}
    params = {p.name.value: i for i, p in enumerate(function.params.params)}
    iterated: dict[str, int] = {}
    other: set[str] = set()
    allowed: set[int] = set()
    for node in walk(function.body):
        if isinstance(node, cst.Call) and isinstance(arg := iterated_argument(node), cst.Name):
            allowed.add(id(arg))
        elif isinstance(node, cst.For) and isinstance(source := iterated_in(node), cst.Name):
            allowed.add(id(source))
    for node in walk(function.body):
        if isinstance(node, cst.Name) and node.value in params:
            if id(node) in allowed:
                iterated[node.value] = params[node.value]
            else:
                other.add(node.value)
    return {i: name for name, i in iterated.items() if name not in other}
