"""A batch padded per rank, followed from the loader into the model and the loss (DP127).

dhpollack/bytenet.pytorch@9aba0ef (stop 51 v1-B, w3): `PadCollate` (data/loader_utils.py:37-59)
pads each batch's sources to the batch's longest with a non-zero pad index, and the model
(dilated 1-D convolutions, no mask) sees the padding at real positions. DataParallel padded
the whole batch to the global longest; under DDP each rank pads its share to the share's
longest, so the outputs at real positions may see padding of another length.

Followed, in each function of a module that loops over a training loader whose collate pads
(`padded_batches.padding_collates`): the loop's target and the names bound from it in the
loop's body, at any remove (`mb = encoder(mb)`, `out = decoder(mb)`) — the def-use of the
loop's body, each assignment read once; a loop over a name its own function binds from
another value (a validation pass's own `loader = DataLoader(...)` beside a training
method's `loader`, stop 55 v1) reads that value, not the padded loader. Then:
1. a call of a wrapped model (a name or attribute bound from `DataParallel(...)`) handed one
   of them, unless the model is proved to map each position alone (a torch layer such as
   `Linear`, or a class of the program that builds, itself or through the program's classes
   it builds, no convolution, pooling, recurrent layer, attention or batch norm), with no
   mask or lengths alongside (an argument whose text names `mask` or `len`,
   or a `pack_padded_sequence` of the batch; or `**batch` of the loop's own batch where every
   collate of the loader returns a dict with a key naming `mask` or `len`, `masking_collates`:
   the mask is one of the model's arguments): DP127 at the call;
2. a mean loss (padded_batches.mean_losses) in that loop's function is said only where one
   of them reaches it (its arguments, or, for a loss object, a call of the name it is bound
   to); a mean loss in a function of the program every call of which (by its name, across
   the program's modules) lies in such a loop (`compute_loss(model, frames, targets)`) is
   said where the batch reaches it through the parameters it is handed (`reached_helpers`:
   one remove); a mean loss elsewhere (not followed) is said as before.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import last_name, model_name

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


Makers = dict[str, frozenset[int]]
"""A function of the program that returns a training loader, by its name: the positions of
its returned tuple holding one (-1: the value it returns is the loader)."""


def loader_makers(trees: list[ast.Module], trains: frozenset[int]) -> Makers:
    """The functions of `trees` (defined once in the program) each `return` of which that
    gives a loader gives one of `trains` (the ids of the training DataLoader calls), itself
    or a name its function binds from one, alone or at a position of a tuple: round 31,
    fenneccat/NAVER_AIRUSH_Grammar_Error_Correction@0ed9002 built its padded loader in a
    function and looped over what module code bound from its call (no DP127/DP151)."""
    found: dict[str, set[int]] = {}
    defined: dict[str, int] = {}
    for tree in trees:
        for node in ast_nodes.listed(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            defined[node.name] = defined.get(node.name, 0) + 1
            held = {
                t.id
                for n in ast.walk(node)
                if isinstance(n, ast.Assign) and id(n.value) in trains
                for t in n.targets
                if isinstance(t, ast.Name)
            }

            def gives(value: ast.expr, held: set[str] = held) -> bool:
                return id(value) in trains or (isinstance(value, ast.Name) and value.id in held)

            for ret in ast.walk(node):
                if not isinstance(ret, ast.Return) or ret.value is None:
                    continue
                if gives(ret.value):
                    found.setdefault(node.name, set()).add(-1)
                elif isinstance(ret.value, ast.Tuple):
                    at = {i for i, item in enumerate(ret.value.elts) if gives(item)}
                    if at:
                        found.setdefault(node.name, set()).update(at)
    return {name: frozenset(at) for name, at in found.items() if defined[name] == 1}


def _loaders(
    tree: ast.Module, trains: frozenset[int], makers: Makers | None = None
) -> frozenset[str]:
    """The last names of the targets bound from the training DataLoader calls `trains`
    (their ids), or from a call of one of `makers` (the whole value, or the items of an
    unpacked tuple at the positions that hold a loader)."""
    makers = makers or {}
    found: set[str] = set()
    for node in ast_nodes.listed(tree):
        if not isinstance(node, ast.Assign):
            continue
        if id(node.value) in trains:
            found.update(_bound(t) for t in node.targets)
            continue
        if not isinstance(node.value, ast.Call):
            continue
        at = makers.get(last_name(node.value.func), frozenset())
        for target in node.targets if at else ():
            if -1 in at and not isinstance(target, ast.Tuple):
                found.add(_bound(target))
            elif isinstance(target, ast.Tuple):
                found.update(_bound(t) for i, t in enumerate(target.elts) if i in at)
    return frozenset(found) - {""}


def padded_loops(
    tree: ast.Module,
    trains: frozenset[int],
    masking: frozenset[int] = frozenset(),
    makers: tuple[Makers, Makers] = ({}, {}),
) -> Iterator[tuple[ast.For, set[str], frozenset[str]]]:
    """Each `for` loop of `tree` over a loader bound from one of `trains` (the ids of the
    DataLoader calls given a padding collate) or from a call of one of `makers[0]`
    (functions returning one: `loader_makers`), with the names its body binds from the
    batch, and, where each such loader it reads is one of `masking` (its collate returns the
    mask among the batch's keys; `makers[1]`: the functions returning one that is not), the
    names holding the batch with those keys (`keyed_batches`)."""
    loaders = _loaders(tree, trains, makers[0])
    if not loaders:
        return
    unmasked = _loaders(tree, trains - masking, makers[1])
    functions = [
        n for n in ast_nodes.listed(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    for node in ast_nodes.listed(tree):
        if not isinstance(node, ast.For):
            continue
        over = {
            last_name(n) for n in ast.walk(node.iter) if isinstance(n, ast.Name | ast.Attribute)
        }
        if over & loaders - _bound_otherwise(node, functions, trains):
            keyed = keyed_batches(node) if not over & unmasked else frozenset()
            yield node, _derived(node, _target_names(node.target)), keyed


def _bound_otherwise(
    loop: ast.For, functions: list[ast.FunctionDef | ast.AsyncFunctionDef], trains: frozenset[int]
) -> set[str]:
    """The plain names the innermost function holding `loop` binds from a value that is
    not one of the training loaders `trains` (a validation pass's own `loader =
    DataLoader(...)` beside a training method's `loader`): a loop there over such a name
    reads that function's loader, not the padded one."""
    holders = [f for f in functions if f.lineno <= loop.lineno <= (f.end_lineno or 0)]
    if not holders:
        return set()
    inner = max(holders, key=lambda f: f.lineno)
    return {
        t.id
        for n in ast.walk(inner)
        if isinstance(n, ast.Assign) and id(n.value) not in trains
        for t in n.targets
        if isinstance(t, ast.Name)
    }


def _derived(loop: ast.AST, seed: set[str]) -> set[str]:
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


def masking_collates(tree: ast.Module) -> tuple[tuple[str, bool], ...]:
    """Each function `tree` defines at its top level or in a class (by its own name) and
    each class with `__call__` (by the class's name), with whether every `return` of it
    returns a dict holding a key that names a mask or lengths (`{"input_ids": ids,
    "attention_mask": mask}`, `dict(x=x, lengths=n)`, or a local bound once to a dict display
    and given keys by `batch["mask"] = m`): the batch it collates carries its mask."""
    found: list[tuple[str, bool]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found.append((node.name, _returns_mask(node)))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found.append((item.name, _returns_mask(item)))
                    if item.name == "__call__":
                        found.append((node.name, _returns_mask(item)))
    return tuple(found)


def _returns_mask(function: ast.FunctionDef) -> bool:
    nodes = list(ast.walk(function))
    returns = [n.value for n in nodes if isinstance(n, ast.Return)]
    if not returns or any(value is None for value in returns):
        return False
    binds: dict[str, list[ast.expr]] = {}
    keys: dict[str, set[str]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    binds.setdefault(target.id, []).append(node.value)
                elif (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                ):
                    keys.setdefault(target.value.id, set()).add(target.slice.value)
    for value in returns:
        named = keys.get(value.id, set()) if isinstance(value, ast.Name) else set()
        if isinstance(value, ast.Name) and len(binds.get(value.id, [])) == 1:
            value = binds[value.id][0]
        if not any(_masks(key) for key in _dict_keys(value) | named):
            return False
    return True


def _dict_keys(value: ast.expr | None) -> set[str]:
    """The string keys of a dict display or a `dict(...)` call's keywords, else none."""
    if isinstance(value, ast.Dict):
        return {
            k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
        }
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        return {k.arg for k in value.keywords if k.arg is not None}
    return set()


def _masks(key: str) -> bool:
    return any(word in key.lower() for word in _UNMASKED[:2])


def keyed_batches(loop: ast.For) -> frozenset[str]:
    """The names in `loop` that hold its batch with the collate's keys: its target (a
    name), and a name bound from a dict comprehension over `batch.items()` keeping each key
    (`batch = {k: v.to(device) for k, v in batch.items()}`), to a fixed point."""
    if not isinstance(loop.target, ast.Name):
        return frozenset()
    keyed = {loop.target.id}
    comprehensions = [
        (node.targets[0].id, node.value)
        for node in ast.walk(loop)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.DictComp)
        and len(node.value.generators) == 1
    ]
    changed = True
    while changed:
        changed = False
        for name, value in comprehensions:
            if name not in keyed and _keeps_keys(value, keyed):
                keyed.add(name)
                changed = True
    return frozenset(keyed)


def _keeps_keys(value: ast.DictComp, keyed: set[str]) -> bool:
    """`{k: f(v) for k, v in batch.items()}` of a name of `keyed`: every key kept."""
    over = value.generators[0]
    return (
        not over.ifs
        and isinstance(over.iter, ast.Call)
        and isinstance(over.iter.func, ast.Attribute)
        and over.iter.func.attr == "items"
        and isinstance(over.iter.func.value, ast.Name)
        and over.iter.func.value.id in keyed
        and isinstance(over.target, ast.Tuple)
        and bool(over.target.elts)
        and isinstance(over.target.elts[0], ast.Name)
        and isinstance(value.key, ast.Name)
        and value.key.id == over.target.elts[0].id
    )


#: A class's forward() inputs it never reads: (positions after `self`, names).
Unread = tuple[frozenset[int], frozenset[str]]


def unread_inputs(tree: ast.Module) -> dict[str, Unread]:
    """The parameters of each top-level class's `forward` that its body never reads (none
    where it takes `*args` or `**kwargs`): a `lengths` the model is handed but ignores
    masks nothing (round 23, kaggle_disaster_tweets' `forward(x, lengths)` running a GRU
    over the padded length: DP151 said "handed lengths", DP127 is the truth)."""
    found: dict[str, Unread] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if not isinstance(item, ast.FunctionDef) or item.name != "forward":
                continue
            arguments = item.args
            if arguments.vararg is not None or arguments.kwarg is not None:
                continue
            read = {
                n.id
                for n in ast.walk(item)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            }
            positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]][1:]
            names = {
                a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            }
            unread = frozenset(n for n in names - {"self"} if n not in read)
            found[node.name] = (
                frozenset(i for i, n in enumerate(positional) if n in unread),
                frozenset(unread),
            )
    return found


def unmasked_model_calls(
    loop: ast.For,
    derived: set[str],
    wrapped: dict[str, str],
    blind: frozenset[str],
    keyed: frozenset[str] = frozenset(),
    unread: dict[str, Unread] | None = None,
) -> Iterator[ast.Call]:
    """Each call in `loop` of a wrapped model handed a name of `derived` with no mask or
    lengths alongside, unless the model is proved to map each position alone (its class is
    one of `blind`: `position_blind`); a name bound from a `pack_padded_sequence` of it
    (`packed = pack_padded_sequence(x, lens)`, `model(packed)`) is handed with its lengths;
    `**batch` of a name of `keyed` (the loop's batch as its masking collate built it:
    `keyed_batches`, empty where a collate of the loader is not proved to hand a mask)
    hands the model the mask among its keys."""
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
        if not isinstance(node, ast.Call) or model_name(node.func) not in wrapped:
            continue
        if wrapped[model_name(node.func)] in blind:
            continue
        given = [*node.args, *(k.value for k in node.keywords)]
        if not any(_names(arg) & derived for arg in given):
            continue
        positions, names = (unread or {}).get(wrapped[model_name(node.func)], _ALL_READ)
        read = [a for i, a in enumerate(node.args) if i not in positions]
        kept = [k for k in node.keywords if k.arg is None or k.arg not in names]
        spelled = [ast.unparse(a).lower() for a in [*read, *(k.value for k in kept)]]
        spelled += [k.arg.lower() for k in kept if k.arg is not None]
        masked = any(word in text for text in spelled for word in _UNMASKED) or any(
            k.arg is None and isinstance(k.value, ast.Name) and k.value.id in keyed
            for k in node.keywords
        )
        if not masked and not any(_names(arg) & packed for arg in given):
            yield node


_ALL_READ: Unread = (frozenset(), frozenset())


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


def reached_helpers(
    trees: list[ast.Module], loops: list[list[tuple[ast.For, set[str]]]], wanted: set[str]
) -> dict[int, set[str]]:
    """For each function of `trees` named in `wanted` (the names of the functions holding
    a mean loss outside the padded loops' functions), defined once in the program, called
    (by its last name) somewhere, and only from inside the loops of `loops` (each tree's
    padded loops with the names they bind from the batch): its id, with the names of its
    body the batch reaches: the parameters those calls hand a batch name (by position, past
    `self` for a method called on a receiver, or by keyword; every parameter where `*` or
    `**` hands one), and the names bound from them; a module-level loop's names also (a
    function of its module may read them as globals)."""
    defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    calls: dict[str, list[ast.Call]] = {}
    for tree in trees:
        for node in ast_nodes.listed(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in wanted:
                defs.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.Call) and last_name(node.func) in wanted:
                calls.setdefault(last_name(node.func), []).append(node)
    inside = {id(n): derived for each in loops for loop, derived in each for n in ast.walk(loop)}
    found: dict[int, set[str]] = {}
    todo = [(defined, calls.get(name, []), False) for name, defined in defs.items()]
    todo += [([f], handed, True) for f, handed in _criterion_calls(trees, wanted)]
    for defined, handed, bound in todo:
        if len(defined) != 1 or not handed or any(id(c) not in inside for c in handed):
            continue
        function = defined[0]
        seed: set[str] = set()
        for call in handed:
            seed |= _handed(function, call, inside[id(call)], bound)
        for index, tree in enumerate(trees):
            if any(n is function for n in tree.body) or any(
                function in getattr(c, "body", ()) for c in tree.body
            ):
                seed |= {n for loop, derived in loops[index] if loop in tree.body for n in derived}
        found[id(function)] = _derived(function, seed)
    return found


def _criterion_calls(
    trees: list[ast.Module], wanted: set[str]
) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[ast.Call]]]:
    """The forward() (or `__call__`) of each class of `trees` named in `wanted`, with the
    calls of the names bound to its instances (`criterion = Crit()`, then
    `self.criterion(pred, target)` by its last name): a criterion module's mean loss is
    reached where the loop hands its call the batch (round 26, kaituoxu/Tacotron2@8efdee5
    `FeaturePredictNetLoss.forward`'s `nn.MSELoss()(...)`)."""
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    instances: dict[str, set[str]] = {}
    calls: dict[str, list[ast.Call]] = {}
    for tree in trees:
        for node in ast_nodes.listed(tree):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and (
                        item.name in wanted and item.name in ("forward", "__call__")
                    ):
                        methods[node.name] = item
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                for target in node.targets:
                    instances.setdefault(last_name(target), set()).add(last_name(node.value.func))
    for tree in trees:
        for node in ast_nodes.listed(tree):
            if isinstance(node, ast.Call) and len(instances.get(last_name(node.func), ())) == 1:
                calls.setdefault(next(iter(instances[last_name(node.func)])), []).append(node)
    for name, method in methods.items():
        yield method, calls.get(name, [])


def _handed(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    call: ast.Call,
    derived: set[str],
    bound: bool = False,
) -> set[str]:
    """The parameters of `function` that `call` hands a name of `derived` (for a method
    called on a receiver, the one past `self` and, but for `self`, the one at the same
    position: `Class.method(obj, batch)` is not told from `obj.method(batch)`); all of them
    where it hands one by `*`/`**` or through the receiver of a method."""
    arguments = function.args
    params = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]
    every = {*params, *(a.arg for a in arguments.kwonlyargs)}
    every |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    skip = 1 if params[:1] in (["self"], ["cls"]) and isinstance(call.func, ast.Attribute) else 0
    skip = 1 if bound else skip  # an instance's call: its forward() past `self`
    if isinstance(call.func, ast.Attribute) and _names(call.func.value) & derived:
        return every  # the receiver holds the batch (`self.batch = batch`; `self.loss()`)
    seed: set[str] = set()
    for position, arg in enumerate(call.args):
        if not _names(arg) & derived:
            continue
        if isinstance(arg, ast.Starred):
            return every
        if position + skip < len(params):
            seed.add(params[position + skip])
        elif arguments.vararg is not None:
            seed.add(arguments.vararg.arg)
        if (
            skip
            and not bound
            and position < len(params)
            and params[position] not in ("self", "cls")
        ):
            seed.add(params[position])  # `Class.method(obj, batch)`: the receiver passed
    for keyword in call.keywords:
        if _names(keyword.value) & derived:
            if keyword.arg is None:
                return every
            seed.add(keyword.arg if keyword.arg in every else getattr(arguments.kwarg, "arg", ""))
    return seed - {""}


def collate_name(loader: ast.Call) -> str:
    """The last name of what a DataLoader call is handed as `collate_fn=` ("" if none)."""
    for keyword in loader.keywords:
        if keyword.arg == "collate_fn":
            return collate_called(keyword.value)
    return ""


def collate_called(value: ast.expr) -> str:
    """The last name of the collate function `value` stands for: `collate`, a construction
    `Collate(...)`'s class, the function a lambda calls (`lambda b: collate(b, tok)`) or
    `functools.partial` binds (`partial(collate, pad=1)`): round 31, fenneccat/NAVER_AIRUSH_
    Grammar_Error_Correction@0ed9002 handed its padding collate through a lambda, no DP151."""
    if isinstance(value, ast.Lambda):
        value = value.body
    if isinstance(value, ast.Call) and last_name(value.func) == "partial" and value.args:
        return last_name(value.args[0])
    return last_name(value.func if isinstance(value, ast.Call) else value)


def fed_mixing(
    loop: ast.For, derived: set[str], wrapped: dict[str, str], blind: frozenset[str]
) -> list[str]:
    """Each place where `loop` hands a wrapped model not proved position-blind a name of
    `derived` (the padded batch, or what the loop computes from it): "" for a call of the
    model; a function's name where the loop hands it the model and the batch together
    (`calc_loss(model, batch)`: round 31's NAVER_AIRUSH_Grammar_Error_Correction), whose
    call of the model is not followed."""
    found: list[str] = []
    for node in ast.walk(loop):
        if not isinstance(node, ast.Call):
            continue
        args = [*node.args, *(k.value for k in node.keywords)]
        if not any(
            {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)} & derived for arg in args
        ):
            continue
        if last_name(node.func) in wrapped:
            if wrapped[last_name(node.func)] not in blind:
                found.append("")
        elif any(
            isinstance(arg, ast.Name | ast.Attribute)
            and last_name(arg) in wrapped
            and wrapped[last_name(arg)] not in blind
            for arg in args
        ):
            found.append(f"{last_name(node.func)}() (line {node.lineno})")
    return found
