"""Losses that compare samples across the batch (DP040).

DataParallel gathered the model's outputs on one device and the loss, computed outside the
model, saw the whole batch; under DDP each rank's loss sees only its part. For a loss over
single samples that changes nothing (DDP averages the ranks' gradients), but a loss over
pairs of samples (batch-hard triplet mining, contrastive losses, a pairwise distance
matrix) mines among fewer samples: its value and gradients differ
(michuanhaohao/reid-strong-baseline's TripletLoss). What counts, inside a function whose
name, or whose class's name, says loss or metric learning (code in a model's forward ran
per GPU under DataParallel too):

* torch.cdist / torch.pdist;
* a product of two batches, one transposed: `x.mm(y.t())`, `torch.matmul(x, y.T)`,
  `dist.addmm_(1, -2, x, y.t())`, `x @ y.t()`, both plain names (a weight or a table of
  class centres is an attribute: `x.mm(self.centers.t())` compares samples with classes);
* `labels.expand(n, n)` (an n x n mask), `x.unsqueeze(1) - x.unsqueeze(0)`.

A criterion class is also judged by its use, whatever its name (criterion_pairs, stop 33
class P1: mangye16/Unsupervised_Embedding_Learning's `BatchCriterion`, every other row of
the batch a negative): an instance called on a wrapped model's output whose forward()
compares the batch's rows (batch_pairs.py, told as ModelClass.pairs) gets DP040 at the
call. A comparison inside the model (attention) ran per GPU under DataParallel too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.facts import ModelClass
from dp2ddp.flow import DefUse
from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.names import (
    DATAPARALLEL,
    DDP_WRAPS,
    DISTRIBUTED_DATA_PARALLEL,
)
from dp2ddp.transforms._support.nodes import (
    code_of,
    name_of,
    nodes_of,
    parsed_or_none,
    walk,
)
from dp2ddp.transforms.analysis.batch_pairs import NORM_SAID, keeps_first_axis
from dp2ddp.transforms.analysis.class_facts import ClassFacts
from dp2ddp.transforms.analysis.handed_parameters import handed, wraps
from dp2ddp.transforms.analysis.held_objects import held
from dp2ddp.transforms.analysis.partial_forward import module_classes
from dp2ddp.transforms.analysis.wrap_calls import own_functions_that_wrap, wrapper_results
from dp2ddp.transforms.hazards.fed_parameters import fed_names as _fed_names
from dp2ddp.transforms.hazards.fed_parameters import fed_parameters
from dp2ddp.transforms.hazards.fed_parameters import reads_output as _reads_output
from dp2ddp.transforms.hazards.ranked_rows import ranked_rows

#: A function's or class's name that says loss or metric learning.
LOSS_NAMED = re.compile(
    r"loss|triplet|mining|contrastive|metric|pairwise|euclidean|dist_?mat|hard_", re.IGNORECASE
)
_WRAPS = DATAPARALLEL | DISTRIBUTED_DATA_PARALLEL
_DISTANCES = frozenset({"cdist", "pdist"})
_PRODUCTS = frozenset({"mm", "matmul", "addmm", "addmm_", "bmm"})
#: Row-wise similarities that pair every row with every other when handed two views of one
#: batch unsqueezed apart (SimCLR's NT-Xent: `cosine_similarity(z.unsqueeze(1), z.unsqueeze(0))`).
_SIMILARITIES = frozenset({"cosine_similarity", "pairwise_distance"})
#: The per-rank size a migrated loader is given (data/size_guards.py PER_RANK).
_PER_RANK = "ddp_per_rank_batch"


def pair_losses(
    module: cst.Module, code: Callable[[cst.CSTNode], str]
) -> Iterator[tuple[cst.FunctionDef, str, str]]:
    """Each loss-like function comparing samples across the batch, with its name
    (`Class.method` in a class) and the expression."""
    for node, owner in _functions(module.body, None):
        if not (LOSS_NAMED.search(node.name.value) or (owner and LOSS_NAMED.search(owner))):
            continue
        name = f"{owner}.{node.name.value}" if owner else node.name.value
        inner = next((n for n in walk(node.body, skip_scopes=True) if compares_samples(n)), None)
        inner = inner or ranked_rows(node)  # the hardest K samples kept (OHEM)
        if inner is not None:
            yield node, name, code(inner)


MAY_COMPARE = re.compile(
    r"cdist|pdist|\.t\(\)|\.T\b|transpose|expand\(|unsqueeze|sort|topk|kthvalue"
)


def pair_loss_sites(source: str) -> list[tuple[int, str, str]]:
    """(line, name, expression) of each DP040 function of `source` (verify names them
    when a migration's updates differ); nothing for a file that does not parse."""
    if not (LOSS_NAMED.search(source) and MAY_COMPARE.search(source)):
        return []
    module = parsed_or_none(source)
    if module is None:
        return []
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    return [
        (positions[node].start.line, name, expression)
        for node, name, expression in pair_losses(wrapper.module, module.code_for_node)
    ]


def _functions(body: object, owner: str | None) -> Iterator[tuple[cst.FunctionDef, str | None]]:
    statements = body if isinstance(body, (list, tuple)) else []
    for stmt in statements:
        if isinstance(stmt, cst.FunctionDef):
            yield stmt, owner
            yield from _functions(_block(stmt), owner)
        elif isinstance(stmt, cst.ClassDef):
            yield from _functions(_block(stmt), stmt.name.value)


def _block(node: cst.FunctionDef | cst.ClassDef) -> tuple[cst.BaseStatement, ...]:
    body = node.body
    return tuple(body.body) if isinstance(body, cst.IndentedBlock) else ()


def _transposed(node: cst.BaseExpression, batched: bool = False) -> cst.Name | None:
    """`y` of a transpose of a name (_transposed_value), None otherwise."""
    value = _transposed_value(node, batched)
    return value if isinstance(value, cst.Name) else None


def _transposed_value(node: cst.BaseExpression, batched: bool = False) -> cst.BaseExpression | None:
    """`y` of `y.t()`, `y.T`, `y.transpose(0, 1)`, also followed by `.contiguous()`. Not a
    transpose that keeps the first axis, the batch's, where it is (`y.transpose(2, 1)`;
    in a batched product, `batched`, also `(-1, -2)`): the product then pairs what is inside
    each sample (the points of one cloud: `torch.bmm(x, x.transpose(2, 1))`, stop 56 v4-E,
    AnTao97/UnsupervisedPointCloudReconstruction@b589694's Chamfer distance), not samples."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "contiguous"
        and not node.args
    ):
        node = node.func.value
    if isinstance(node, cst.Attribute) and node.attr.value == "T":
        value = node.value
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        attr = node.func.attr.value
        if not (attr == "t" and not node.args) and not (
            attr == "transpose" and len(node.args) == 2
        ):
            return None
        if attr == "transpose" and keeps_first_axis(
            [_literal_int(a.value) for a in node.args], batched
        ):
            return None
        value = node.func.value
    else:
        return None
    return value


def _rows(value: cst.BaseExpression | None) -> bool:
    """A transposed operand that may hold the batch's rows: not one read from the object
    (`self.centers.t()`, `F.normalize(self.proxies).t()`: a parameter per class, which
    pairs each sample with the classes, not with the other samples)."""
    return value is not None and not any(
        isinstance(n, cst.Name) and n.value == "self" for n in walk(value)
    )


def _literal_int(node: cst.BaseExpression) -> int | None:
    """The value of an integer literal, `-1` included; None for anything else."""
    sign = 1
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        sign, node = -1, node.expression
    return sign * int(node.value) if isinstance(node, cst.Integer) else None


def _compared(node: cst.CSTNode) -> tuple[str, str] | None:
    """The two names whose rows `node` compares: (`x`, `y`) of `x.mm(y.t())`,
    `torch.matmul(x, y.T)`, `x @ y.t()`, `torch.cdist(x, y)`, `x.unsqueeze(1) -
    y.unsqueeze(0)`, as compares_samples reads a comparison."""
    pair: list[cst.BaseExpression | None] = []
    if isinstance(node, cst.Call):
        func = node.func
        last = name_of(func)
        values = [a.value for a in node.args if a.keyword is None and not a.star]
        if last in _DISTANCES:
            pair = [*values[:2]] if len(values) >= 2 else [*values[:1], *values[:1]]
        elif last in _PRODUCTS and not last.startswith("addmm") and values:
            if isinstance(func, cst.Attribute) and name_of(func.value) != "torch":
                pair = [func.value, _transposed(values[0])]  # x.mm(y.t())
            elif len(values) >= 2:
                pair = [values[0], _transposed(values[1])]  # torch.matmul(x, y.t())
    elif isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.MatrixMultiply):
            pair = [node.left, _transposed(node.right)]
        elif isinstance(node.operator, cst.Subtract):
            left, right = _unsqueezed(node.left), _unsqueezed(node.right)
            if left is not None and right is not None and left[1] != right[1]:
                return left[0], right[0]
    first, second = (pair + [None, None])[:2]
    if isinstance(first, cst.Name) and isinstance(second, cst.Name):
        return first.value, second.value
    return None


def compares_samples(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Call):
        func = node.func
        last = name_of(func)
        if last in _DISTANCES:
            return True
        values = [a.value for a in node.args if a.keyword is None and not a.star]
        if last in _PRODUCTS:
            if last.startswith("addmm"):  # dist.addmm_(1, -2, x, y.t()): the last two
                operands = values[-2:]
            elif isinstance(func, cst.Attribute) and name_of(func.value) != "torch":
                operands = [func.value, *values[:1]]  # x.mm(y.t())
            else:
                operands = values[:2]  # torch.matmul(x, y.t())
            if len(operands) == 2:  # of any rows: `F.normalize(a) @ F.normalize(b).t()`
                batched = last == "bmm"
                return _rows(_transposed_value(operands[1], batched))
        if last in _SIMILARITIES and len(values) >= 2:  # `cos(z.unsqueeze(1), z.unsqueeze(0))`
            left, right = _unsqueezed(values[0]), _unsqueezed(values[1])
            return left is not None and right is not None and left[1] != right[1]
        if last == "expand" and len(values) == 2 and isinstance(func, cst.Attribute):
            a, b = values
            return isinstance(a, cst.Name) and isinstance(b, cst.Name) and a.value == b.value
        return False
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.MatrixMultiply):  # also of expressions (round 34,
            return _rows(_transposed_value(node.right))  # SimCLR's normalized views)
        if isinstance(node.operator, cst.Subtract):
            left, right = _unsqueezed(node.left), _unsqueezed(node.right)
            return (
                left is not None
                and right is not None
                and left[0] == right[0]
                and left[1] != right[1]
            )
    return False


def _unsqueezed(node: cst.BaseExpression) -> tuple[str, str] | None:
    """(`x`, `1`) of `x.unsqueeze(1)`."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "unsqueeze"
        and isinstance(node.func.value, cst.Name)
        and len(node.args) == 1
        and isinstance(node.args[0].value, cst.Integer)
    ):
        return node.func.value.value, node.args[0].value.value
    return None


def criterion_pairs(
    module: cst.Module,
    wrapped: set[str],
    described: Callable[[cst.Call], str],
    transform: MigrationTransform,
) -> Iterator[tuple[cst.CSTNode, str]]:
    """The first call, per scope, of each criterion object on a wrapped model's output whose
    class's forward() compares the rows of its batch (stop 33 class P1), with DP040's
    detail (where its forward compares; "one of the classes" when the name is also bound
    to another construction: Knowledge-Distillation-Zoo's `criterionKD = SP()` in one
    branch, `Logits()` in another; or a binding read to no construction). The class is
    decided by its use, whatever its name: a callee that may hold a construction of such a
    class (`described(call)`: ModelClass.pairs of the class, "" when not such a class),
    through the def-use view's bindings (analysis/held_objects.py: a name, `self.x`, a
    dict's entry, an unpacked tuple, a helper's return, every call's argument; stop 49 g1,
    stop 48 matched the target's spelling), called with an argument that reads a wrapped
    model's call (`crit(net(x))`, the model also through such bindings: `nets["snet"]`) or
    a name bound, in the same scope, from one (`feats = net(inputs)`, then `feats = feats /
    feats.norm(...)`: the binding closes over names so fed). A class
    whose name already says loss or metric learning is left to pair_losses (DP040 at its
    definition, in its own module). A wrapped model is also one a function returned
    (`snet = define_tsnet(...)`, network.py wrapping: analysis/wrap_calls.py)."""
    yield from _inline_pairs(module, wrapped, transform)
    if isinstance(described, ClassPairs) and not described.any():
        return  # no class of the program compares rows: nothing to read
    objects = held(module)
    pairs: dict[int, str] = {}  # id of a construction of such a class -> ModelClass.pairs
    for call in objects.defs.calls:
        if _binds_object(call, objects.defs) and not LOSS_NAMED.search(name_of(call.func) or ""):
            how = described(call)
            if how:
                pairs[id(call)] = how
    for node, instance, hows, mixed in _called_on_output(module, wrapped, pairs, transform):
        yield node, _detail(instance, "; ".join(hows), mixed)


def unknown_class_pairs(
    module: cst.Module, wrapped: set[str], described: ClassPairs, transform: MigrationTransform
) -> Iterator[tuple[cst.CSTNode, str]]:
    """DP116: the first call, per scope, of an object on a wrapped model's output whose
    class is not known statically (`getattr(losses, name)()`, `losses.__dict__[name]()`,
    `LOSSES[name]()`, stop 57 s1's left 1) and may be a class of the program whose forward()
    compares the batch's rows (ClassPairs.dynamic): the proof has no answer, so it says so."""
    if not described.any():
        return
    objects = held(module)
    pairs = {
        id(call): how
        for call in objects.defs.calls
        if _binds_object(call, objects.defs)
        and (how := described.dynamic(call, lambda n: objects(n).sources))
    }
    for node, instance, hows, _ in _called_on_output(module, wrapped, pairs, transform):
        yield (
            node,
            (
                f"{instance}() is called on the wrapped model's output and its class is not known "
                f"statically; it may be {'; '.join(hows)}: where it is, each rank's loss sees its "
                "own part of each batch, DataParallel's saw the whole batch"
            ),
        )


def _called_on_output(
    module: cst.Module, wrapped: set[str], pairs: dict[int, str], transform: MigrationTransform
) -> Iterator[tuple[cst.Call, str, list[str], bool]]:
    """The first call, per scope, of each object that may hold a construction of `pairs`
    (by id) with an argument that reads a wrapped model's output: (the call, the object as
    spelled, the constructions' descriptions, whether it may hold something else too)."""
    if not pairs:
        return
    code = transform.code
    objects = held(module)
    wrapped = wrapped | _built_wraps(module, transform)
    if not wrapped:
        return

    def is_wrap(call: cst.Call) -> bool:  # `nets["snet"]`, an alias of a wrap (DDP's too)
        return _entry(call.func, code) in wrapped or any(
            transform.qualified_names(c.func) & _WRAPS or name_of(c.func) in DDP_WRAPS
            for c in objects(call.func).calls
        )

    scopes: list[cst.CSTNode] = [module]
    scopes += nodes_of(module, cst.FunctionDef)
    for scope in scopes:
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        nodes = list(walk(body, skip_scopes=True))
        fed: set[str] | None = None
        told: set[str] = set()  # one warning per instance and scope
        for node in nodes:
            if not isinstance(node, cst.Call) or isinstance(node.func, cst.Call):
                continue
            found = objects(node.func)
            hows = {pairs[id(c)]: None for c in found.calls if id(c) in pairs}
            instance = _entry(node.func, code)
            if not hows or instance in told:
                continue
            fed = _fed_names(nodes, is_wrap) if fed is None else fed
            if any(_reads_output(arg.value, is_wrap, fed) for arg in node.args):
                told.add(instance)
                others = not found.complete or any(id(c) not in pairs for c in found.sources)
                yield node, instance, list(hows), others or len(hows) > 1


def _binds_object(call: cst.Call, defs: DefUse) -> bool:
    """`call` (through `.cuda()`/`.to()`) is what a binding holds: an assignment's value, an
    element of one, a dict's entry, a return, an argument."""
    node: cst.CSTNode = call
    parent = defs.parent(node)
    while isinstance(parent, cst.Attribute) and isinstance(defs.parent(parent), cst.Call):
        node = defs.parent(parent) or node  # `Critic(...).to(device)` (stop 48 z3, r2-C)
        parent = defs.parent(node)
    return isinstance(
        parent,
        (cst.Assign, cst.AnnAssign, cst.DictElement, cst.Element, cst.Return, cst.Arg),
    )


def _inline_pairs(
    module: cst.Module, wrapped: set[str], transform: MigrationTransform
) -> Iterator[tuple[cst.CSTNode, str]]:
    """The first comparison, per scope, of the rows of names bound from a wrapped model's
    output or from parameters its calls hand one (fed_parameters.py), in the scope itself
    (stop 49 a3-B, chingyaoc/DCL@7d6345f: `torch.mm(out, out.t())` of `out = torch.cat([out_1,
    out_2])`): DataParallel saw the whole batch's gathered outputs, DDP each rank's part. The
    model: a wrap as spelled, or a parameter a call hands one. Loss-named: pair_losses'."""
    if not MAY_COMPARE.search(transform.state.text or module.code):
        return
    code = transform.code
    names = DATAPARALLEL | DISTRIBUTED_DATA_PARALLEL

    def is_wrap(node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Call) and bool(transform.qualified_names(node.func) & names)

    scopes: list[cst.Module | cst.FunctionDef] = [module, *nodes_of(module, cst.FunctionDef)]
    for scope in scopes:
        if isinstance(scope, cst.FunctionDef) and LOSS_NAMED.search(scope.name.value):
            continue
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        nodes = list(walk(body, skip_scopes=True))
        found = [
            (n, pair)
            for n in nodes
            if isinstance(n, cst.Call | cst.BinaryOperation) and (pair := _compared(n))
        ]
        if not found:
            continue
        here = set(wrapped)
        if isinstance(scope, cst.FunctionDef):
            params = [*scope.params.params, *scope.params.kwonly_params]
            here |= {
                p.name.value
                for p in params
                if any(v is not None and wraps(v, is_wrap) for v in handed(p, transform, here))
            }
        seed = fed_parameters(scope, transform, here) if isinstance(scope, cst.FunctionDef) else ()
        fed = _fed_names(nodes, _calls_of(here, code), seed) if here or seed else set()
        for node, (first, second) in found:
            if first in fed and second in fed:
                seen = code(node).splitlines()[0][:60]
                rows = first if second == first else f"{first} and {second}"
                yield (
                    node,
                    (
                        f"`{seen}` compares the rows of {rows}, bound from the wrapped model's "
                        "output: each rank computes it on its own part of each batch, "
                        "DataParallel on the whole batch's gathered outputs"
                    ),
                )
                break


def _calls_of(names: set[str], code: Callable[[cst.CSTNode], str]) -> Callable[[cst.Call], bool]:
    """Whether a call calls one of `names` as spelled (a wrapped model, or the parameter a
    call of the function hands a wrap: _inline_pairs' models)."""
    return lambda call: _entry(call.func, code) in names


def _detail(instance: str, how: str, mixed: bool) -> str:
    if "; " in how:
        return (
            f"{instance}() is called on the wrapped model's output and {how.count('; ') + 1} "
            f"of the classes it is bound to compare the batch's rows in forward() ({how}): "
            "where it is one of them, each rank's loss sees its own part of each batch, "
            "DataParallel's saw the whole batch"
        )
    if not mixed:
        verb = "couples" if NORM_SAID in how else "compares"  # a norm over them all: not pairs
        return (
            f"{instance}() is called on the wrapped model's output and its class's forward() "
            f"{verb} the batch's rows ({how}): each rank's loss sees its own part of each "
            "batch, DataParallel's saw the whole batch"
        )
    return (
        f"{instance}() is called on the wrapped model's output and one of the classes it is "
        f"bound to compares the batch's rows in forward() ({how}): where it is that one, "
        "each rank's loss sees its own part of each batch, DataParallel's saw the whole batch"
    )


def _built_wraps(module: cst.Module, transform: MigrationTransform) -> set[str]:
    """Names bound to the result of a function that returns a DataParallel wrap."""

    def is_wrap(node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Call) and bool(
            transform.qualified_names(node.func) & DATAPARALLEL
        )

    wrappers = own_functions_that_wrap(module, is_wrap) | {*transform.state.facts.wrap_functions}
    if not wrappers:
        return set()
    built = wrapper_results(module, transform, frozenset(wrappers), is_wrap)
    return {code_of(b) for b in built.bindings} | set(built.spelled)


def _entry(node: cst.BaseExpression, code: Callable[[cst.CSTNode], str]) -> str:
    """`d['k']` of `d["k"]` (one spelling for an entry of a dict of strings), else as spelled."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            key = index.value.evaluated_value
            if isinstance(key, str):
                return f"{code(node.value)}[{key!r}]"
    return code(node)


class ClassPairs:
    """ModelClass.pairs of the class a call builds, by its qualified names: the program's
    classes as told (ProgramFacts.models), or this file's own for a single file (read once,
    when first asked)."""

    def __init__(
        self,
        models: tuple[ModelClass, ...],
        source: Callable[[], str],
        qualified_names: Callable[[cst.CSTNode], set[str]],
    ) -> None:
        self._told = {c.name: how for c in models if (how := self.told_of(c))}
        self._single = not models
        self._source = source
        self._qualified_names = qualified_names
        self.names = qualified_names
        self._own: dict[str, str] | None = None

    def any(self) -> bool:
        """Some class compares rows (else every call's answer is "")."""
        return bool(self._known())

    def _known(self) -> dict[str, str]:
        if not self._single:
            return self._told
        if self._own is None:
            self._own = self.own_of(module_classes("", "", self._source()))
        return self._own

    def dynamic(
        self, call: cst.Call, sources: Callable[[cst.BaseExpression], tuple[cst.CSTNode, ...]]
    ) -> str:
        """For a construction whose class is looked up by a name known only at run time
        (`getattr(m, name)(...)`, `m.__dict__[name](...)`, `table[name](...)`): the program's
        classes it may build that compare rows, `name: how` joined by "; " ("" when none):
        the classes of module `m` (none for a library's: torch.nn's losses compare no
        rows), those of the table's values where `sources` gives it as a dict literal, or
        every such class where the owner is not known at all or is another thing of the
        program's modules (a table in another module: `losses.TABLE[name]`)."""
        func = call.func
        if isinstance(func, cst.Call) and name_of(func.func) == "getattr" and func.args:
            owner: cst.BaseExpression = func.args[0].value
        elif isinstance(func, cst.Subscript):
            owner = func.value
        else:
            return ""
        if isinstance(owner, cst.Attribute) and owner.attr.value == "__dict__":
            owner = owner.value
        known = self._known()
        picked: list[str] = []
        tables = [d for d in sources(owner) if isinstance(d, cst.Dict)]
        if tables:  # `LOSSES = {"pair": PairLoss, ...}`: its values' classes
            for table in tables:
                for element in table.elements:
                    if isinstance(element, cst.DictElement):
                        names = self._qualified_names(element.value)
                        picked += [n for n in sorted(names) if n in known]
        elif qualified := self._qualified_names(owner):  # a module: its classes
            prefixes = tuple(f"{q}." for q in qualified)
            picked = [n for n in known if n.startswith(prefixes)]
            roots = {q.split(".")[0] for q in qualified}
            if not picked and any(n.split(".")[0] in roots for n in known):
                picked = list(known)  # a table of the program's (`losses.TABLE[name]`)
        elif not isinstance(owner, cst.Name) or not sources(owner):
            picked = list(known)  # an owner not known at all: any of them
        return "; ".join(f"{name} ({known[name]})" for name in sorted(set(picked)))

    @staticmethod
    def told_of(model: ModelClass) -> str:
        """What is asked of a class of the program: where its forward() compares rows."""
        return model.pairs

    @staticmethod
    def own_of(classes: Mapping[str, ClassFacts]) -> dict[str, str]:
        """... and of a single file's own classes, by name."""
        return {name: facts.pairs for name, facts in classes.items() if facts.pairs}

    def __call__(self, call: cst.Call) -> str:
        known = self._known()
        if not known:
            return ""
        qualified = self._qualified_names(call.func)
        bare = name_of(call.func) or ""
        found = next((known[n] for n in sorted(qualified | {bare}) if n in known), "")
        if found or qualified or not bare:
            return found
        # A name no import resolves (`from kd_losses import *`, a package re-exporting
        # its modules' classes: Knowledge-Distillation-Zoo's SP): the program's one
        # class of that name, if one.
        same = {how for name, how in known.items() if name.rpartition(".")[2] == bare}
        return same.pop() if len(same) == 1 else ""


class ClassCuts(ClassPairs):
    """ModelClass.cuts of the class a call builds (analysis/batch_pairs.py `forward_cuts`),
    resolved as ClassPairs resolves ModelClass.pairs."""

    def __init__(
        self,
        models: tuple[ModelClass, ...],
        source: Callable[[], str],
        qualified_names: Callable[[cst.CSTNode], set[str]],
    ) -> None:
        super().__init__(models, source, qualified_names)
        self._told = {c.name: "\n".join(c.cuts) for c in models if c.cuts}

    def _known(self) -> dict[str, str]:
        if not self._single:
            return self._told
        if self._own is None:
            self._own = {
                name: "\n".join(facts.cuts)
                for name, facts in module_classes("", "", self._source()).items()
                if facts.cuts
            }
        return self._own


def criterion_findings(
    module: cst.Module, wrapped: set[str], pairs_of: ClassPairs, transform: MigrationTransform
) -> Iterator[tuple[cst.CSTNode, str, str]]:
    """(node, code, detail) of criterion_pairs' DP040 and criterion_cuts' DP064: the two
    findings on a criterion object by its use on a wrapped model's output."""
    for at, detail in criterion_pairs(module, wrapped, pairs_of, transform):
        yield at, "DP040", detail
    models = transform.state.facts.models
    cuts_of = ClassCuts(models, lambda: transform.state.text or module.code, pairs_of.names)
    for at, detail in criterion_cuts(module, wrapped, cuts_of, transform):
        yield at, "DP064", detail


def criterion_cuts(
    module: cst.Module, wrapped: set[str], cuts_of: ClassCuts, transform: MigrationTransform
) -> Iterator[tuple[cst.CSTNode, str]]:
    """DP064 (stop 58 v3-A, takahikof/RIPT_SDMM@fca73d3 Train.py:55 → model/loss/DINO.py:100):
    the first call, per scope, of an object on a wrapped model's output whose class's
    forward() cuts that input's rows at a position counted by a batch size the object holds
    (`student_output[-self.args.batch_size:]`, the mixup views' rows behind the crops'),
    where the construction hands it the loader's global batch size (`DinoLoss(args)` holds
    `args.batch_size`, the `batch_size=` of a DataLoader of this module, which the data pass
    gives each rank `ddp_per_rank_batch(args.batch_size)` of). DataParallel gathered the
    whole batch's output, so the position fell where the program meant; each rank's output
    holds its part's rows only, and the cut takes other rows (a shape mismatch at the
    loss, as there, or other samples silently). Not rewritten: the size is read inside the
    class, which its own module migrates without the loader; said at the call."""
    if not cuts_of.any():
        return
    code = transform.code
    objects = held(module)
    loaders: dict[str, cst.Call] = {}
    for call in nodes_of(module, cst.Call):
        if name_of(call.func) == "DataLoader":
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "batch_size":
                    value = arg.value  # a migrated loader's ddp_per_rank_batch(B): B
                    if isinstance(value, cst.Call) and name_of(value.func) == _PER_RANK:
                        value = value.args[0].value if len(value.args) == 1 else value
                    loaders.setdefault(code(value), call)
    held_sizes: dict[int, tuple[list[str], str, cst.Call]] = {}
    for call in objects.defs.calls:
        facts = cuts_of(call).split("\n") if _binds_object(call, objects.defs) else [""]
        if len(facts) != 5:
            continue
        where, param, index, holds, _ = facts
        given = _argument(call, param, int(index))
        if given is None:
            continue
        size = code(given) + holds[len(param) :]
        if size in loaders:
            held_sizes[id(call)] = (facts, size, loaders[size])
    if not held_sizes:
        return
    wrapped = wrapped | _built_wraps(module, transform)

    def is_wrap(call: cst.Call) -> bool:
        return _entry(call.func, code) in wrapped or any(
            transform.qualified_names(c.func) & _WRAPS or name_of(c.func) in DDP_WRAPS
            for c in objects(call.func).calls
        )

    for scope in [module, *nodes_of(module, cst.FunctionDef)]:
        body = scope.body if isinstance(scope, cst.FunctionDef) else scope
        nodes = list(walk(body, skip_scopes=True))
        fed: set[str] | None = None
        for node in nodes:
            if not isinstance(node, cst.Call) or isinstance(node.func, cst.Call):
                continue
            built = [held_sizes[id(c)] for c in objects(node.func).calls if id(c) in held_sizes]
            if not built:
                continue
            fed = _fed_names(nodes, is_wrap) if fed is None else fed
            if any(_reads_output(arg.value, is_wrap, fed) for arg in node.args):
                (where, _, _, _, read), size, loader = built[0]
                yield (
                    node,
                    f"{_entry(node.func, code)}() is called on the wrapped model's output and "
                    f"its class's forward() cuts that input's rows at a position counted by "
                    f"{read} ({where}), which it holds as {size}, the batch_size of the "
                    f"DataLoader at line {transform.line_of(loader)}: each rank's output "
                    f"holds only its part's rows (ddp_per_rank_batch({size}) per batch), so "
                    "the cut takes other rows than DataParallel's",
                )
                break


def _argument(call: cst.Call, param: str, index: int) -> cst.BaseExpression | None:
    """The argument a construction binds to its `__init__` parameter `param` (position
    `index` after self), a keyword or a positional one; None where it is not plain."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == param:
            return arg.value
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional) or index >= len(positional):
        return None
    return positional[index].value
