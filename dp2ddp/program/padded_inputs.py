"""A batch padded per rank, followed from the loader into the model and the loss (DP127).

dhpollack/bytenet.pytorch@9aba0ef (stop 51 v1-B, w3): `PadCollate` (data/loader_utils.py:37-59)
pads each batch's sources to the batch's longest with a non-zero pad index, and the model
(dilated 1-D convolutions, no mask) sees the padding at real positions. DataParallel padded
the whole batch to the global longest; under DDP each rank pads its share to the share's
longest, so the outputs at real positions may see padding of another length.

Followed, in each function of a module that loops over a training loader whose collate pads
(`padded_batches.padding_collates`): the loop's target and the names bound from it in the
loop's body, at any remove (`mb = encoder(mb)`, `out = decoder(mb)`) — the def-use of the
loop's body, each assignment read once. Then:
1. a call of a wrapped model (a name or attribute bound from `DataParallel(...)`) handed one
   of them, unless the model is proved to map each position alone (a torch layer such as
   `Linear`, or a class of the program that builds, itself or through the program's classes
   it builds, no convolution, pooling, recurrent layer, attention or batch norm), with no
   mask or lengths alongside (an argument whose text names `mask` or `len`,
   or a `pack_padded_sequence` of the batch): DP127 at the call;
2. a mean loss (padded_batches.mean_losses) in that loop's function is said only where one
   of them reaches it (its arguments, or, for a loss object, a call of the name it is bound
   to); a mean loss elsewhere in the program (another function or module: not followed) is
   said as before.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import last_name

_UNMASKED = ("mask", "len", "pack_padded_sequence")


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _target_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _bound(target: ast.expr) -> str:
    """The name a target binds (`model`, `self.model`: `model`), or ''."""
    return last_name(target)


def wrapped_models(tree: ast.Module) -> dict[str, str]:
    """The last names of the targets `tree` binds from a value that builds `DataParallel`
    (`enc = nn.DataParallel(enc).cuda() if n > 1 else enc.cuda()`; `DistributedDataParallel`
    in a migrated program: --check says it again), each with the last name
    of the class it wraps (`BytenetEncoder`, from `enc = BytenetEncoder(...)`), or ''."""
    built: dict[str, str] = {}
    wrapped: dict[str, ast.expr | None] = {}
    for node in ast_nodes.listed(tree):
        if not isinstance(node, ast.Assign):
            continue
        calls = [
            n
            for n in ast.walk(node.value)
            if isinstance(n, ast.Call) and last_name(n.func) in _WRAPPERS
        ]
        for target in node.targets:
            if calls:
                wrapped[_bound(target)] = calls[0].args[0] if calls[0].args else None
            elif isinstance(node.value, ast.Call):
                made = _unmoved(node.value)
                if isinstance(made, ast.Call):
                    built.setdefault(_bound(target), last_name(made.func))
    found: dict[str, str] = {}
    for name, inner in wrapped.items():
        if isinstance(inner, ast.Call):
            inner = _unmoved(inner)
        if isinstance(inner, ast.Call):
            found[name] = last_name(inner.func)
        elif inner is not None:
            found[name] = built.get(last_name(inner), "")
        else:
            found[name] = ""
    found.pop("", None)
    return found


_WRAPPERS = frozenset({"DataParallel", "DistributedDataParallel"})
_MOVES = frozenset({"to", "cuda", "cpu", "half", "float", "double", "train"})


def _unmoved(call: ast.Call) -> ast.Call | ast.expr:
    """`call` without its device moves: `Net().to(DEVICE)` -> `Net()`."""
    value: ast.expr = call
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _MOVES
    ):
        value = value.func.value
    return value


#: The layers that mix a sequence's positions: a real position's output may see padding.
_MIXING = frozenset(
    "LSTM GRU RNN LSTMCell GRUCell MultiheadAttention Transformer TransformerEncoder "
    "TransformerDecoder TransformerEncoderLayer TransformerDecoderLayer Unfold Fold".split()
)
_MIXING_PARTS = ("Conv", "Pool", "BatchNorm", "InstanceNorm")


def _mixing(name: str) -> bool:
    return name in _MIXING or any(part in name for part in _MIXING_PARTS)


#: A class of a module: (name, whether its body builds a layer that mixes positions, the
#: last names of the calls its body makes).
LayerFact = tuple[str, bool, frozenset[str]]


def layer_facts(tree: ast.Module) -> tuple[LayerFact, ...]:
    """Each class `tree` defines at its top level, with whether its body builds a layer
    that mixes a sequence's positions (a convolution, pooling, a recurrent layer,
    attention, a batch norm) and the calls it makes (the program's classes it builds)."""
    found: list[LayerFact] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            calls = frozenset(last_name(n.func) for n in ast.walk(node) if isinstance(n, ast.Call))
            found.append((node.name, any(map(_mixing, calls)), calls - {""}))
    return tuple(found)


def position_blind(facts: list[LayerFact]) -> frozenset[str]:
    """The classes of the program (`layer_facts` of its modules) that build no layer that
    mixes positions, by themselves or through the program's classes they build, to a
    fixed point; with torch's own layers that map each position alone (`Linear`)."""
    mixing = {name for name, mixes, _ in facts if mixes}
    changed = True
    while changed:
        changed = False
        for name, _, calls in facts:
            if name not in mixing and calls & mixing:
                mixing.add(name)
                changed = True
    return frozenset(name for name, _, _ in facts if name not in mixing) | _PER_POSITION


_PER_POSITION = frozenset(
    "Linear Bilinear Embedding Identity ReLU GELU Tanh Sigmoid Dropout LayerNorm".split()
)


def _loaders(tree: ast.Module, trains: frozenset[int]) -> frozenset[str]:
    """The last names of the targets bound from the training DataLoader calls `trains`
    (their ids)."""
    return frozenset(
        _bound(t)
        for node in ast_nodes.listed(tree)
        if isinstance(node, ast.Assign) and id(node.value) in trains
        for t in node.targets
    ) - {""}


def padded_loops(tree: ast.Module, trains: frozenset[int]) -> Iterator[tuple[ast.For, set[str]]]:
    """Each `for` loop of `tree` over a loader bound from one of `trains` (the ids of the
    DataLoader calls given a padding collate), with the names its body binds from the batch."""
    loaders = _loaders(tree, trains)
    if not loaders:
        return
    for node in ast_nodes.listed(tree):
        if not isinstance(node, ast.For):
            continue
        over = {
            last_name(n) for n in ast.walk(node.iter) if isinstance(n, ast.Name | ast.Attribute)
        }
        if over & loaders:
            yield node, _derived(node, _target_names(node.target))


def _derived(loop: ast.For, seed: set[str]) -> set[str]:
    assigns: list[tuple[set[str], set[str]]] = []
    for node in ast.walk(loop):
        if isinstance(node, ast.Assign):
            targets = {n for t in node.targets for n in _target_names(t)}
            assigns.append((targets, _names(node.value)))
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and node.value is not None:
            assigns.append((_target_names(node.target), _names(node.value)))
    derived = set(seed)
    while True:
        more = {t for targets, reads in assigns if reads & derived for t in targets} - derived
        if not more:
            return derived
        derived |= more


def unmasked_model_calls(
    loop: ast.For, derived: set[str], wrapped: dict[str, str], blind: frozenset[str]
) -> Iterator[ast.Call]:
    """Each call in `loop` of a wrapped model handed a name of `derived` with no mask or
    lengths alongside, unless the model is proved to map each position alone (its class is
    one of `blind`: `position_blind`); a name bound from a `pack_padded_sequence` of it
    (`packed = pack_padded_sequence(x, lens)`, `model(packed)`) is handed with its lengths."""
    packed = {
        n
        for node in ast.walk(loop)
        if isinstance(node, ast.Assign)
        and any(
            isinstance(c, ast.Call) and last_name(c.func) == "pack_padded_sequence"
            for c in ast.walk(node.value)
        )
        for t in node.targets
        for n in _target_names(t)
    }
    for node in ast.walk(loop):
        if not isinstance(node, ast.Call) or last_name(node.func) not in wrapped:
            continue
        if wrapped[last_name(node.func)] in blind:
            continue
        given = [*node.args, *(k.value for k in node.keywords)]
        if not any(_names(arg) & derived for arg in given):
            continue
        spelled = [ast.unparse(a).lower() for a in given]
        spelled += [k.arg.lower() for k in node.keywords if k.arg is not None]
        masked = any(word in text for text in spelled for word in _UNMASKED)
        if not masked and not any(_names(arg) & packed for arg in given):
            yield node


def reached_spans(loop: ast.For, derived: set[str]) -> tuple[set[int], set[str]]:
    """The ids of the calls in `loop` handed a name of `derived`, and the names of the
    callees of those calls (a loss object's name: `criterion(out, tgts)`)."""
    calls = [
        n
        for n in ast.walk(loop)
        if isinstance(n, ast.Call)
        and any(_names(a) & derived for a in [*n.args, *(k.value for k in n.keywords)])
    ]
    return {id(c) for c in calls}, {last_name(c.func) for c in calls} - {""}
