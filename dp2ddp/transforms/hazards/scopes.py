"""Small read-only analyses the hazard checks share: loop facts, scopes, self mutations.

Each looks at one function (or the module) at a time and never descends into nested
functions, classes or lambdas, whose code runs at some other time."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import libcst as cst

from dp2ddp.transforms._support.grad_mode import Matches
from dp2ddp.transforms._support.nodes import name_of, target_names, walk
from dp2ddp.transforms._support.visiting import read_tree
from dp2ddp.transforms.analysis.batch_noise import batch_of_size, sized_by_batch
from dp2ddp.transforms.analysis.row_picks import PERMUTATIONS, rows_among
from dp2ddp.transforms.analysis.seeded_streams import stream_of
from dp2ddp.transforms.analysis.training import evaluation_draw, is_backward_call, loop_trains

QualifiedNames = Callable[[cst.CSTNode], set[str]]

#: Container methods that change the container in place (tensor in-place ops end in `_`).
_MUTATORS = frozenset(
    "append extend insert pop remove clear update setdefault popitem appendleft extendleft "
    "discard".split()
)


class _Flat(cst.CSTVisitor):
    """Visit `root` but not the bodies of functions, classes and lambdas inside it."""

    def __init__(self, root: cst.CSTNode) -> None:
        super().__init__()
        self.root = root

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.root

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return node is self.root

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


@dataclass
class LoopInfo:
    """A loop on the stack of enclosing loops."""

    node: cst.For | cst.While
    training: bool
    #: names bound by the loop header (`for xb, yb in loader` -> xb, yb).
    targets: set[str] = field(default_factory=set)
    #: counters a batch index could be computed from: range targets and `i += bs` names.
    counters: set[str] = field(default_factory=set)


class _AugAssigned(_Flat):
    def __init__(self, root: cst.CSTNode) -> None:
        super().__init__(root)
        self.names: set[str] = set()

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.names |= target_names(node.target)


def loop_info(
    loop: cst.For | cst.While, qualified_names: QualifiedNames, ranges: frozenset[str]
) -> LoopInfo:
    info = LoopInfo(loop, loop_trains(loop, qualified_names))
    if isinstance(loop, cst.For):
        info.targets = target_names(loop.target)
        if _iterates_range(loop.iter, qualified_names, ranges):
            info.counters |= info.targets
    aug = _AugAssigned(loop)
    read_tree(loop.body, aug)
    info.counters |= aug.names
    return info


def in_training_loop(
    loops: list[LoopInfo],
    draw: cst.Call | None,
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
    matches: Matches,
) -> bool:
    """Some loop of `loops` (innermost first) trains, and `draw` (None: any node) is not in
    an evaluation nested in it (analysis/training.evaluation_draw)."""
    if not any(info.training for info in loops):
        return False
    inner = loops[0]
    return draw is None or not evaluation_draw(draw, inner.node, inner.training, parent, matches)


def _iterates_range(
    node: cst.BaseExpression, qualified_names: QualifiedNames, ranges: frozenset[str]
) -> bool:
    """`range(...)`, `trange(...)`, and those wrapped in enumerate()/tqdm()."""
    if not isinstance(node, cst.Call):
        return False
    names = qualified_names(node.func)
    if names & ranges:
        return True
    return any(_iterates_range(arg.value, qualified_names, ranges) for arg in node.args[:1])


class ScopeFacts(_Flat):
    """What reaches `.backward()` in one scope, and every value assigned to each name."""

    def __init__(self, root: cst.CSTNode, qualified_names: QualifiedNames) -> None:
        super().__init__(root)
        self.qualified_names = qualified_names
        self.backward: list[cst.BaseExpression] = []
        #: The backward() call of each entry of `backward`, in the same order.
        self.backward_calls: list[cst.Call] = []
        self.assigned: dict[str, list[cst.BaseExpression]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        if not is_backward_call(node, self.qualified_names):
            return
        func = node.func
        autograd = "torch.autograd.backward" in self.qualified_names(func)
        if isinstance(func, cst.Attribute) and func.attr.value == "backward" and not autograd:
            self.backward.append(func.value)
            self.backward_calls.append(node)
        elif node.args:
            self.backward.append(node.args[0].value)
            self.backward_calls.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.assigned.setdefault(target.target.value, []).append(node.value)
            elif (  # `a, b = f(x), g(y)`: item by item (round 32's BinauralSpeechSynthesis)
                isinstance(target.target, cst.Tuple | cst.List)
                and isinstance(node.value, cst.Tuple | cst.List)
                and len(target.target.elements) == len(node.value.elements)
                and not any(isinstance(e, cst.StarredElement) for e in node.value.elements)
            ):
                for item, value in zip(target.target.elements, node.value.elements, strict=True):
                    if isinstance(item.value, cst.Name):
                        self.assigned.setdefault(item.value.value, []).append(value.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:  # `/= n`: no term (round 38's ssd)
        if isinstance(node.target, cst.Name) and not isinstance(node.operator, cst.DivideAssign):
            self.assigned.setdefault(node.target.value, []).append(node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        """`loss: torch.Tensor = a + b` binds as `loss = a + b` does (round 29, QuocThangNguyen/
        deep-metric-learning-tsinghua-dogs@fca6beb's annotated losses were never read)."""
        if isinstance(node.target, cst.Name) and node.value is not None:
            self.assigned.setdefault(node.target.value, []).append(node.value)


def rooted_at(node: cst.BaseExpression, name: str) -> bool:
    """`self.x`, `self.x.y`, `self.x[i]`: an attribute (at any depth) of `name`."""
    seen_attribute = False
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        seen_attribute = seen_attribute or isinstance(node, cst.Attribute)
        node = node.value
    return seen_attribute and isinstance(node, cst.Name) and node.value == name


class SelfMutations(cst.CSTVisitor):
    """Statements and calls in a forward() that change state stored on `self`, directly or
    through a local name bound to it: `u = getattr(self.module, name + "_u")` then
    `u.data = normalize(...)` (the spectral norm's power iteration of round 23's
    zhaoyuzhi/Semantic-Colorization-GAN@e7e012b: DataParallel's replicas dropped the
    update, DDP keeps it; no DP007 before)."""

    def __init__(self, self_name: str) -> None:
        super().__init__()
        self.self_name = self_name
        self.found: list[tuple[cst.CSTNode, cst.CSTNode]] = []  # (where, what)
        #: local names bound to a part of `self` (an attribute, or getattr of one)
        self.aliases: set[str] = set()

    def _targets(self, node: cst.BaseExpression) -> list[cst.BaseExpression]:
        if isinstance(node, (cst.Tuple, cst.List)):
            return [t for e in node.elements for t in self._targets(e.value)]
        return [node]

    def _rooted(self, node: cst.BaseExpression) -> bool:
        """`node` writes into `self`'s state: `self.x...`, or an attribute or item of an
        alias of a part of it."""
        if rooted_at(node, self.self_name):
            return True
        if not isinstance(node, (cst.Attribute, cst.Subscript)):
            return False
        while isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        return isinstance(node, cst.Name) and node.value in self.aliases

    def _part_of_self(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Call) and name_of(value.func) == "getattr" and value.args:
            first = value.args[0].value
            return (isinstance(first, cst.Name) and first.value == self.self_name) or self._rooted(
                first
            )
        return isinstance(value, cst.Attribute) and self._rooted(value)

    def _check(self, statement: cst.CSTNode, targets: list[cst.BaseExpression]) -> None:
        for target in targets:
            for item in self._targets(target):
                if self._rooted(item):
                    self.found.append((statement, item))
                    return

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check(node, [node.target])

    def visit_Assign(self, node: cst.Assign) -> None:
        if not _moved_in_place(node):  # `self.dec = self.dec.to(x.device)`: the same module
            self._check(node, [t.target for t in node.targets])
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                if len(node.targets) == 1 and self._part_of_self(node.value):
                    self.aliases.add(target.target.value)
                else:
                    self.aliases.discard(target.target.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._check(node, [node.target])

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value == "setattr" and node.args:
            first = node.args[0].value
            if isinstance(first, cst.Name) and first.value == self.self_name:
                self.found.append((node, node))
            return
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        in_place = (method.endswith("_") and not method.startswith("_")) or method in _MUTATORS
        if in_place and (
            rooted_at(func.value, self.self_name)
            or (isinstance(func.value, cst.Name) and func.value.value in self.aliases)
            or self._rooted(func.value)
        ):
            self.found.append((node, func.value))


def constant_write(where: cst.CSTNode, what: cst.CSTNode, self_name: str) -> str:
    """How a SelfMutations finding writes a constant into a slice of module state whose
    place every rank computes alike (`self.conv.weight.data[:, :, -1, self.causal:].zero_()`,
    a causal mask re-applied in forward(): rosinality/vq-vae-2-pytorch@ef5f67c's
    PixelSNAIL, stop 42's v2-D): "`zero_()`" or "`= 0`"; "" for anything else. The
    indices are literals or attributes of `self` (set at construction), the value a
    number literal: no batch and no rank enters it."""
    if isinstance(where, cst.Call) and isinstance(where.func, cst.Attribute):
        method, args = where.func.attr.value, where.args
        if method == "zero_" and not args:
            written = "`zero_()`"
        elif method == "fill_" and len(args) == 1 and _number(args[0].value):
            written = f"`fill_({cst.Module([]).code_for_node(args[0].value)})`"
        else:
            return ""
    elif isinstance(where, cst.Assign) and len(where.targets) == 1 and _number(where.value):
        written = f"`= {cst.Module([]).code_for_node(where.value)}`"
    else:
        return ""
    if not isinstance(what, cst.Subscript) or not all(
        _fixed_index(e.slice, self_name) for e in what.slice
    ):
        return ""
    return written


def constant_write_note(where: cst.CSTNode, what: cst.CSTNode, self_name: str) -> str:
    """DP007's detail for a `constant_write`: no drift between the ranks, but where the
    constant lands differs from DataParallel's (its replicas' copies, not the parameter)."""
    written = constant_write(where, what, self_name)
    if not written:
        return ""
    return (
        f" is set to a constant ({written}) at a place every rank computes "
        "alike: identical on every rank, no drift between them; but DataParallel "
        "wrote it into its replicas' copies only and kept the parameter's own "
        "values, while DDP writes into the parameter itself: the saved weights "
        "hold the constant there"
    )


@lru_cache(maxsize=4)
def _config_batch_sizes(module: cst.Module) -> dict[str, str]:
    """The objects whose attributes the module hands as a `batch_size=` keyword (a
    configuration: `get_data_iter(batch_size=FLAGS.bs_c)` -> {"FLAGS": "FLAGS.bs_c"}), once
    per module."""
    found: dict[str, str] = {}
    for call in walk(module):
        for arg in call.args if isinstance(call, cst.Call) else ():
            value = arg.value
            if (
                arg.keyword is not None
                and arg.keyword.value == "batch_size"
                and isinstance(value, cst.Attribute)
            ):
                found.setdefault(module.code_for_node(value.value), module.code_for_node(value))
    return found


def config_draw(node: cst.Call, module: cst.Module | None) -> str:
    """DP006's detail for a draw whose first dimension is an attribute of a configuration
    whose attribute (that one or another) is handed as a `batch_size=`
    (`torch.randn(FLAGS.bs_g, nz)` beside `get_data_iter(batch_size=FLAGS.bs_c)`:
    taufikxu/Triple-GAN@127948d train_triplegan.py:159, v3-C of stop 53): a count of the
    configuration, not proved this rank's share, drawn whole on every rank, where it meets a
    sharded loader's batch the global batch's rows beside this rank's. "" for another draw."""
    first = _drawn_size(node)
    if (
        module is None
        or not isinstance(first, cst.Attribute)
        or name_of(node.func).endswith("_like")
    ):
        return ""
    loader = _config_batch_sizes(module).get(module.code_for_node(first.value))
    spelled = module.code_for_node(first)
    if loader is None:
        return ""
    whose = (
        "handed as `batch_size=` itself"
        if loader == spelled
        else f"a count of the configuration whose `{loader}` is handed as `batch_size=`"
    )
    return (
        f" sized by `{spelled}`, {whose}: each rank draws all those rows, where DataParallel "
        "drew them once and scattered them with the batch. Where that batch_size sizes a "
        "sharded loader (each rank's batch its share, ddp_per_rank_batch of it) and these "
        "rows meet that loader's batch (a model called with both), they are the global "
        "batch's beside this rank's share: a model given both fails on a mismatch of sizes, "
        f"or pairs rows that are not this rank's. Where `{spelled}` counts the global batch, "
        f"draw ddp_per_rank_batch({spelled}) rows"
    )


#: Samplers whose leading arguments are the distribution's parameters, not a size: their
#: size is `size=` (`np.random.beta(args.alpha, args.alpha)` draws one number; round 21,
#: yhu01/PT-MAP@134b940: DP006 called it "sized by `args.alpha`" and advised drawing
#: ddp_per_rank_batch(args.alpha) rows).
_PARAMETERS_FIRST = frozenset(
    {
        "beta", "binomial", "choice", "dirichlet", "exponential", "gamma", "geometric",
        "gumbel", "integers", "laplace", "logistic", "lognormal", "multinomial",
        "multivariate_normal", "normal", "poisson", "randint", "triangular", "uniform",
        "vonmises", "weibull",
    }
)  # fmt: skip


def _drawn_size(node: cst.Call) -> cst.BaseExpression | None:
    """The expression a draw's first dimension is given by: its first positional argument,
    or `size=` for a sampler whose leading arguments are parameters (_PARAMETERS_FIRST)."""
    if name_of(node.func).rpartition(".")[2] in _PARAMETERS_FIRST:
        return next(
            (a.value for a in node.args if a.keyword is not None and a.keyword.value == "size"),
            None,
        )
    return node.args[0].value if node.args and node.args[0].keyword is None else None


def _batch_size_name(first: cst.BaseExpression | None) -> bool:
    """`bs`, `args.batch_size`, `nbatch`: a name written as a batch's size."""
    last = name_of(first).lower() if first is not None else ""
    return last == "bs" or ("batch" in last and ("size" in last or last.startswith("n")))


def global_draw(node: cst.Call, module: cst.Module | None = None) -> str:
    """DP006's detail for a draw sized by a batch size not proved the loader's
    (`torch.randn(self.batch_size, z_dim)`, the configured size reaching the loader through
    another object: sxhxliang/BigGAN-pytorch@be65631, stop 42's v2-C): each rank draws the
    whole batch that size names, from the same stream where the ranks seed it alike
    (torch's default seed is the same in every process). "" for another draw."""
    first = _drawn_size(node)
    if name_of(node.func).endswith("_like") or not _batch_size_name(first):
        return config_draw(node, module)  # `randn_like(batch)`: a tensor's shape
    spelled = cst.Module([]).code_for_node(first) if first is not None else ""
    return (
        f" sized by `{spelled}`, not proved this rank's batch: where it is the global "
        "batch's size, each rank draws the whole global batch's values, alike on every rank "
        "where their generators are seeded alike (torch's default seed is the same in every "
        "process), where DataParallel drew them once for the batch it scattered"
    )


#: Draws of an order (a permutation of samples), not of values a model computes with.
ORDER_DRAWS = frozenset(
    {"random.shuffle", "random.sample", "numpy.random.shuffle", "numpy.random.permutation"}
    | {"torch.randperm"}
)


_STREAMS = {"random": "Python's `random`", "numpy": "numpy's global", "torch": "torch's global"}


def draw_detail(
    node: cst.Call,
    names: set[str],
    loops: Iterable[cst.For],
    module: cst.Module | None,
    alike: Callable[[], frozenset[str]],
    picks: bool = False,
) -> str:
    """DP006's detail for a draw in a training loop (`loops`: the loops around it, innermost
    first): a size not proved the loader's (global_draw), a permutation of the batch's rows
    or positions among them (rows_permuted; `picks`: analysis/row_picks.picks_rows), an
    order (order_draw); "" for another draw."""
    device = next(
        (
            cst.Module([]).code_for_node(a.value)
            for a in node.args
            if a.keyword is not None
            and a.keyword.value == "device"
            and not (isinstance(a.value, cst.SimpleString) and a.value.evaluated_value == "cpu")
        ),
        "",
    )
    return (
        global_draw(node, module)
        or rows_permuted(node, names, loops, picks)
        or order_draw(names, alike, device)
    )


def _moved_in_place(node: cst.Assign) -> bool:
    """`self.net = self.net.to(device)`: a module moved in place, bound to what it held
    (round 36, YuliangXiu/CVAE-GAN@00d8689's forward(), a false DP007)."""
    func = node.value.func if isinstance(node.value, cst.Call) else None
    return (
        len(node.targets) == 1
        and isinstance(func, cst.Attribute)
        and func.attr.value in ("to", "cuda", "cpu")
        and isinstance(func.value, cst.Attribute)
        and node.targets[0].target.deep_equals(func.value)
    )


def rows_permuted(
    node: cst.Call, names: set[str], loops: Iterable[cst.For], picks: bool = False
) -> str:
    """DP006's detail for a permutation of the loop's own batch rows (`index =
    torch.randperm(x.size(0))`, `np.random.permutation(len(x))`; sized_by_batch), which
    picks mixing partners among the batch's samples (CutMix, MixUp: `x[index]`;
    jypark1994/ClassDiscriminativeCutMix@dbf3290, class v1-C of stop 56): under DDP that
    size is this rank's share, so each rank pairs its samples among its own. "" where the
    draw is no such permutation. With `picks` (the draw's values index the batch's rows:
    analysis/row_picks.picks_rows), also `torch.randint(0, x.size(0), (x.size(0),))`:
    positions among the rows drawn with replacement (MixUp's partners, round 26 rc)."""
    first = rows_among(node)
    if names & PERMUTATIONS:
        what, bound, once = "a permutation of the batch's rows", "sized", "permuted"
    elif picks and "torch.randint" in names:
        what, bound, once = "positions among the batch's rows", "up to", "drew positions in"
    else:
        return ""
    if first is None:
        return ""
    rows = batch_of_size(first)
    if rows is not None and any(_sliced_within(rows, loop, node) for loop in loops):
        return ""  # the data a loop inside cuts batches from (round 35, PersonReID)
    if not any(sized_by_batch(first, loop, node) or rows in _bound_in(loop) for loop in loops):
        return _global_positions(first) if "torch.randint" in names else ""
    return (
        f": {what} ({bound} `{cst.Module([]).code_for_node(first)}`),"
        " this rank's share under DDP: where it picks partners among the batch's samples "
        "(CutMix, MixUp: `x[index]`), each rank mixes its samples only with its own share's, "
        f"where DataParallel {once} the whole batch once and a sample's partner could be "
        "any sample of it"
    )


def _global_positions(first: cst.BaseExpression) -> str:
    """DP006's detail for positions among the batch's rows drawn up to a size written as a
    batch's (`torch.randint(0, args.batch_size, (args.batch_size,))`; `x[j]`): the
    loader's global batch, more rows than this rank's share holds (round 26 rc)."""
    if not _batch_size_name(first):
        return ""
    return (
        f": positions among the batch's rows (up to `{cst.Module([]).code_for_node(first)}`),"
        " not proved this rank's batch: where it is the global batch's size, positions past "
        "this rank's share index rows it does not hold (an IndexError) and the others pair "
        "its samples only with its own share's, where DataParallel drew positions in the "
        "whole batch once and a sample's partner could be any sample of it"
    )


def _sliced_within(name: str, loop: cst.For, draw: cst.CSTNode) -> bool:
    """A loop in `loop`, not around `draw`, cuts `name` (`X[i:i + B]`): data, not a batch."""
    for inner in walk(loop.body, skip_scopes=True):
        if not isinstance(inner, cst.For) or any(n is draw for n in walk(inner)):
            continue
        for node in walk(inner.body, skip_scopes=True):
            if (
                isinstance(node, cst.Subscript)
                and isinstance(node.value, cst.Name)
                and node.value.value == name
                and isinstance(cut := node.slice[0].slice, cst.Slice)
                and (cut.lower is not None or cut.upper is not None)
            ):
                return True
    return False


def _bound_in(loop: cst.For) -> set[str]:
    """Names the loop's target or an assignment of its body binds (`batch, labels =
    data[0].to(device), data[1].to(device)`: a batch's rows for the text of rows_permuted,
    which sized_by_batch does not follow through the subscripts)."""
    names = target_names(loop.target)
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                names |= target_names(target.target)
    return names


def order_draw(names: set[str], alike: Callable[[], frozenset[str]], device: str = "") -> str:
    """DP006's detail for a draw of an order (`random.shuffle(samples)`: v2-D of stop 43,
    Morizeyao/GPT2-Chinese@bbb4465, whose DP006 spoke of "random tensors"): what each rank
    gets, by whether the program seeds that stream alike on every rank (analysis/
    seeded_streams.py; `alike()` gives the streams). "" for another draw."""
    drawn = sorted(names & ORDER_DRAWS)
    if not drawn:
        return ""
    stream = stream_of(drawn)
    spelled = _STREAMS.get(stream or "", "its")
    if stream is not None and stream in alike():
        return (
            f": an order, not tensor values; {spelled} stream is seeded alike on every rank, "
            "so every rank draws the same order (what each then takes from it by position "
            "is the batch passes' question)"
        )
    if device:  # `torch.randperm(n, device=device)`: a GPU's own generator (stop 62 s2)
        return (
            f": an order, not tensor values, drawn on `{device}`: on a GPU by that "
            "device's own generator, which the program does not seed alike on every rank "
            "and the migration's `with ddp_same_random():` (the CPU streams only) does not "
            "share, so each rank may draw its own order, and the samples the ranks take "
            "from their orders by position overlap and miss others, where DataParallel "
            "drew one order"
        )
    return (
        f": an order, not tensor values; {spelled} stream is not seeded alike on every "
        "rank, so each rank draws its own order, and the samples the ranks take from their "
        "orders by position overlap and miss others, where DataParallel drew one order"
    )


def _number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _fixed_index(index: cst.BaseSlice, self_name: str) -> bool:
    """A subscript's element that is the same on every rank: a number, `None`, `...`, an
    attribute of `self`, or a slice of those."""

    def fixed(node: cst.BaseExpression | None) -> bool:
        if node is None or _number(node) or isinstance(node, cst.Ellipsis):
            return True
        if isinstance(node, cst.Name) and node.value == "None":
            return True
        return (
            isinstance(node, cst.Attribute)
            and isinstance(node.value, cst.Name)
            and node.value.value == self_name
        )

    if isinstance(index, cst.Slice):
        return fixed(index.lower) and fixed(index.upper) and fixed(index.step)
    return isinstance(index, cst.Index) and fixed(index.value)


#: The base classes of a custom autograd function.
AUTOGRAD_FUNCTIONS = frozenset(
    {"torch.autograd.Function", "torch.autograd.function.Function",
     "torch.autograd.function.InplaceFunction"}
)  # fmt: skip


class FunctionStateMutations(cst.CSTVisitor):
    """In-place changes, in a `torch.autograd.Function`'s forward() or backward(), of the
    tensors it was handed: what backward() reads from `ctx` (`ctx.saved_tensors`,
    `ctx.memory`), and forward()'s inputs not declared with `ctx.mark_dirty` (an in-place
    activation). A memory bank `index_copy_`'d in backward (lemniscate's NCE) is such state:
    its rows move with each rank's batch. A name also bound from anything else (`grad =
    grad.clone()`) is the function's own."""

    def __init__(self, function: cst.FunctionDef, backward: bool) -> None:
        super().__init__()
        params = [p.name.value for p in function.params.params]
        self.ctx = params[0] if params else ""
        self.found: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        state: set[str] = set() if backward else set(params[1:])
        other: set[str] = set()
        for statement in _walk_statements(function.body):
            if isinstance(statement, cst.Assign):
                from_ctx = self._from_ctx(statement.value)
                for target in statement.targets:
                    for name in target_names(target.target):
                        (state if from_ctx else other).add(name)
            elif isinstance(statement, (cst.AugAssign, cst.AnnAssign)):
                other |= target_names(statement.target)
            elif isinstance(statement, cst.Call) and (
                isinstance(statement.func, cst.Attribute)
                and statement.func.attr.value == "mark_dirty"
            ):
                other |= {a.value.value for a in statement.args if isinstance(a.value, cst.Name)}
        self.state = state - other

    def _from_ctx(self, value: cst.BaseExpression) -> bool:
        """`ctx.saved_tensors`, `ctx.saved_tensors[0]`, `ctx.memory`."""
        while isinstance(value, cst.Subscript):
            value = value.value
        return (
            isinstance(value, cst.Attribute)
            and isinstance(value.value, cst.Name)
            and value.value.value == self.ctx
        )

    def _is_state(self, node: cst.BaseExpression) -> bool:
        while isinstance(node, (cst.Attribute, cst.Subscript)):
            if (
                isinstance(node, cst.Attribute)
                and isinstance(node.value, cst.Name)
                and node.value.value == self.ctx
            ):
                return True  # ctx.memory, ctx.saved_tensors[0]
            node = node.value
        return isinstance(node, cst.Name) and node.value in self.state

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method.endswith("_") and not method.startswith("_") and self._is_state(func.value):
            self.found.append((node, func.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Subscript) and self._is_state(target.target):
                self.found.append((node, target.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._is_state(node.target) and not isinstance(node.target, cst.Name):
            self.found.append((node, node.target))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def _walk_statements(body: cst.CSTNode) -> list[cst.CSTNode]:
    """Assignments and calls under `body`, not inside nested functions."""
    found: list[cst.CSTNode] = []

    class _Collect(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_Assign(self, node: cst.Assign) -> None:
            found.append(node)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            found.append(node)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            found.append(node)

        def visit_Call(self, node: cst.Call) -> None:
            found.append(node)

    read_tree(body, _Collect())
    return found


#: Embedding lookups that renormalise the rows they read in place when given `max_norm`
#: (stop 31 class D2, facebookresearch/DeepSDF's latent codes).
_RENORMED_EMBEDDINGS = frozenset(
    {"torch.nn.Embedding", "torch.nn.modules.sparse.Embedding", "torch.nn.functional.embedding",
     "torch.nn.EmbeddingBag", "torch.nn.modules.sparse.EmbeddingBag",
     "torch.nn.functional.embedding_bag"}
)  # fmt: skip


def renorm_bound(node: cst.Call, names: set[str]) -> cst.BaseExpression | None:
    """DP089's `max_norm=` of an embedding lookup that renormalises its rows in place (not
    `None`); None for another call."""
    if not names & _RENORMED_EMBEDDINGS:
        return None
    bound = next(
        (a.value for a in node.args if a.keyword is not None and a.keyword.value == "max_norm"),
        None,
    )
    if isinstance(bound, cst.Name) and bound.value == "None":
        return None
    return bound
