"""A mean loss over a batch its collate_fn pads to the batch's own longest sample (DP127).

Tomiinek/Multilingual_Text_to_Speech@2c75185 (stop 50 v2, w1): `TextToSpeechCollate`
(dataset/dataset.py:262-300) pads each batch to its longest spectrogram (`if len > max_frames:
max_frames = len`, `torch.zeros(batch_size, hp.num_mels, max_frames)`), and the loss
(modules/tacotron2.py:468) is `F.mse_loss(post_prediction, post_target)`: a mean over every
element of the padded tensor, padding included. DataParallel collated the whole batch once:
one length, one count. Under DDP each rank collates its own share and pads it to its own
longest sample, so each rank's mean divides by another count, over other padded zeros, and
DDP's average of those means is not DataParallel's mean (equal lengths: the same).

Found, across the program's modules (the collate and the loss are often in different ones):
1. a collate the program defines that pads to a length the batch decides: a function, a
   method (by its name) or a class with `__call__` that calls `pad_sequence`, or builds a
   tensor (`torch.zeros`, `ones`, `full`, `empty`, `new_zeros`, `F.pad`, `np.pad`) whose
   arguments name a local bound from a `max(...)` / `.max()` or raised in a comparison with
   itself (`if n > longest: longest = n`), or a nested function's parameter handed one; or
   that calls such a function of the program (ming024/FastSpeech2@d4e79eb's
   `Dataset.collate_fn` -> `pad_1D`, its own `max_len = max(...)`), or that hands such a
   local to a function of the program that sizes a tensor from its parameters
   (dhpollack/bytenet.pytorch@9aba0ef's `_pad_tensor(x, pad=max_len_x)`), to a fixed point;
2. a training DataLoader (`shuffle=` not False, or a `sampler=` / `batch_sampler=`) handed it
   as `collate_fn=` (its name, an attribute ending in it, or a construction of the class);
3. then (padded_inputs.py, stop 51 w3) each call of a wrapped model that mixes positions
   handed the padded batch with no mask or lengths is said, and each mean loss over
   elements (`torch.nn.functional.mse_loss` / `l1_loss` / `smooth_l1_loss` / `huber_loss` /
   `binary_cross_entropy[_with_logits]` with the mean reduction, or a `torch.nn` loss class
   of these built so) of the program's modules,
   or `X.mean()` / `torch.mean(X)` of a difference (`((out - y) ** 2).mean()`), or a mean
   cross entropy with no `ignore_index` (`F.cross_entropy`, `F.nll_loss`, or a call of a
   name bound to `CrossEntropyLoss()` / `NLLLoss()`) whose scores or targets are flattened
   into a row per position (`.view(-1, C)`, `.reshape(-1)`, `.flatten()`, `.view(b * t,
   C)`: AdFiFi/MachineTranslation@d926914, stop 55 v1), said only where the padded batch
   reaches it (a validation pass over another loader is not), unless its
   input is a masked selection (`x[mask]`: a mean over the count the mask selects, DP043). A
   sum, a masked sum over a count, a loss over per-sample values (cross entropy's class
   scores, `torch.mean(loss / lengths)`) is not this. A mean of `out * mask` still counts
   the padding in its denominator: said. A mean loss in a function that loops over the
   padded loader is said only where the batch (or what the loop computes from it) reaches
   it; one elsewhere (not followed) is said as before.
Not rewritten: the right mean is over the real elements of the whole batch.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING

from dp2ddp.codes import title
from dp2ddp.program.padded_inputs import (
    Unread,
    collate_called,
    collate_name,
    fed_mixing,
    layer_facts,
    loader_makers,
    masking_collates,
    padded_loops,
    position_blind,
    reached_helpers,
    reached_spans,
    unmasked_model_calls,
    unread_inputs,
    wrapped_models,
)
from dp2ddp.result import Diagnostic, MigrationResult
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import last_name
from dp2ddp.transforms._support.identifiers import mentions

if TYPE_CHECKING:
    from dp2ddp.program.discovery import Program, ProgramModule
    from dp2ddp.program.project import Project

_BUILDERS = frozenset(
    {
        "zeros",
        "ones",
        "full",
        "empty",
        "new",
        "new_zeros",
        "new_ones",
        "new_empty",
        "new_full",
        "pad",
    }
)
_LOSS_FUNCTIONS = frozenset(
    "mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy "
    "binary_cross_entropy_with_logits".split()
)
_ELEMENTWISE = frozenset({"abs", "pow", "square"})
_CROSS_ENTROPY_FUNCTIONS = frozenset({"cross_entropy", "nll_loss"})
_OVER_POSITIONS = " over the batch's flattened positions"
_CROSS_ENTROPY_CLASSES = frozenset({"CrossEntropyLoss", "NLLLoss"})
_LOSS_CLASSES = frozenset(
    {"MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss"}
)


#: A function or class of a module: (name, whether it pads by itself, the names it calls,
#: whether it is a class, named by its `__call__`, the names it calls with the batch's
#: longest length, whether it builds a tensor sized by its parameters).
PaddingFact = tuple[str, bool, frozenset[str], bool, frozenset[str], bool]


def padding_facts(tree: ast.Module) -> tuple[PaddingFact, ...]:
    """Each function `tree` defines at its top level or in a class (a method, by its own
    name: `collate_fn=dataset.collate_fn`) and each class with `__call__` (by the class's
    name), with whether it pads a batch to a length the batch decides by itself and the last
    names of the calls it makes (a collate calling a padding helper: `pad_1D(texts)`)."""
    found: list[PaddingFact] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found.append(_fact(node.name, node, False))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found.append(_fact(item.name, item, False))
                    if item.name == "__call__":
                        found.append(_fact(node.name, item, True))
    return tuple(found)


def padding_collates(facts: Iterable[PaddingFact]) -> frozenset[str]:
    """The names (of `padding_facts` of a program's modules) that pad, by themselves or by
    calling a function that does, to a fixed point; a class pads where its `__call__` does
    (a call of a class's name builds it: its callers do not pad by it)."""
    listed = list(facts)
    sizers = {name for name, _, _, is_class, _, sizes in listed if sizes and not is_class}
    functions = {
        name
        for name, pads, _, is_class, handed, _ in listed
        if (pads or handed & sizers) and not is_class
    }
    changed = True
    while changed:
        changed = False
        for name, _, calls, is_class, _, _ in listed:
            if not is_class and name not in functions and calls & functions:
                functions.add(name)
                changed = True
    classes = {
        name
        for name, pads, calls, is_class, handed, _ in listed
        if is_class and (pads or calls & functions or handed & sizers)
    }
    return frozenset(functions | classes)


def _fact(name: str, function: ast.FunctionDef, is_class: bool) -> PaddingFact:
    nodes = list(ast.walk(function))
    calls = frozenset(last_name(n.func) for n in nodes if isinstance(n, ast.Call)) - {""}
    longest = _longest(nodes)
    handed = frozenset(
        last_name(n.func)
        for n in nodes
        if isinstance(n, ast.Call)
        and any(_names(arg) & longest for arg in [*n.args, *(k.value for k in n.keywords)])
    ) - {""}
    params = {a.arg for a in function.args.args} - {"self"}
    return name, _pads(nodes, longest), calls, is_class, handed, _builds(nodes, params)


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _builds(nodes: list[ast.AST], params: set[str]) -> bool:
    """Whether a function (its nodes) builds a tensor sized by a value derived from its
    parameters (bytenet.pytorch's `_pad_tensor(vec, pad, dim)`: `pad_size[dim] = pad -
    vec.size(dim)`, `vec.new(*pad_size)`): a padding helper, when handed a length."""
    if not params:
        return False
    derived = set(params)
    assigns: list[tuple[set[str], set[str]]] = []
    for node in nodes:
        if isinstance(node, ast.Assign):
            bases = [t.value if isinstance(t, ast.Subscript) else t for t in node.targets]
            targets = {t.id for t in bases if isinstance(t, ast.Name)}
            assigns.append((targets, _names(node.value)))
    changed = True
    while changed:
        more = {t for targets, reads in assigns if reads & derived for t in targets} - derived
        derived |= more
        changed = bool(more)
    return any(
        isinstance(node, ast.Call)
        and last_name(node.func) in _BUILDERS
        and any(_names(arg) & derived for arg in [*node.args, *(k.value for k in node.keywords)])
        for node in nodes
    )


def _pads(nodes: list[ast.AST], longest: frozenset[str]) -> bool:
    """Whether a function (its nodes) calls `pad_sequence`, or builds a tensor from a local
    that holds the batch's longest length (`longest`) or from a max taken in its arguments
    (`torch.zeros(len(sizes), max(sizes))`: vshmyhlo/listen-attend-and-speell-pytorch@864584e,
    stop 63)."""
    if any(isinstance(n, ast.Call) and last_name(n.func) == "pad_sequence" for n in nodes):
        return True
    if any(_list_padding(n, longest) for n in nodes):
        return True
    return any(
        isinstance(node, ast.Call)
        and last_name(node.func) in _BUILDERS
        and any(
            (isinstance(n, ast.Name) and n.id in longest)
            or (isinstance(n, ast.Call) and last_name(n.func) == "max")
            for arg in [*node.args, *(k.value for k in node.keywords)]
            for n in ast.walk(arg)
        )
        for node in nodes
    )


def _list_padding(node: ast.AST, longest: frozenset[str]) -> bool:
    """`[pad_id] * (max_len - len(ids))`: a list of pads as long as the batch's longest
    item less this item's (round 23, China-ChallengeHub/kaggle_disaster_tweets@1ff4c30's
    `data.input_ids + [pad] * (max_len - data.sent_len)`: no DP127/DP151 before)."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
        return False
    sides = (node.left, node.right)
    if not any(isinstance(side, ast.List) for side in sides):
        return False
    return any(
        (isinstance(n, ast.Name) and n.id in longest)
        or (isinstance(n, ast.Call) and last_name(n.func) == "max")
        for side in sides
        if not isinstance(side, ast.List)
        for n in ast.walk(side)
    )


def _longest(nodes: list[ast.AST]) -> frozenset[str]:
    """The locals of a function (its nodes) that hold the batch's longest length: bound
    from a max, raised under a comparison with itself, or a parameter of a nested function
    handed one (`pad_data(x, max_len)`)."""
    longest: set[str] = set()
    nested = {n.name: n for n in nodes if isinstance(n, ast.FunctionDef)}
    for node in nodes:
        if isinstance(node, ast.Assign) and _has_max(node.value):
            longest.update(t.id for t in node.targets if isinstance(t, ast.Name))
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            compared = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
            for inner in node.body:
                if isinstance(inner, ast.Assign):
                    names = {t.id for t in inner.targets if isinstance(t, ast.Name)}
                    longest.update(names & compared)
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            inner_def = nested.get(node.func.id)
            if inner_def is not None:
                params = [a.arg for a in inner_def.args.args]
                longest.update(
                    params[i]
                    for i, arg in enumerate(node.args[: len(params)])
                    if isinstance(arg, ast.Name) and arg.id in longest
                )
    return frozenset(longest)


def _has_max(value: ast.expr) -> bool:
    return any(isinstance(n, ast.Call) and last_name(n.func) == "max" for n in ast.walk(value))


def trains_with_collate(tree: ast.Module, collates: frozenset[str]) -> bool:
    """Whether `tree` builds a training DataLoader whose `collate_fn=` is one of `collates`
    (its name, an attribute ending in it, or a call of it: a class's construction)."""
    return bool(training_loaders(tree, collates))


def training_loaders(
    tree: ast.Module, collates: frozenset[str], sharded: frozenset[int] = frozenset()
) -> list[ast.Call]:
    """The training DataLoader calls of `tree` whose `collate_fn=` is one of `collates`:
    shuffled or given a sampler, or one the data pass sharded for training (`sharded`, its
    lines: a sequential loader a training loop reads, round 23's kaggle_disaster_tweets)."""
    found: list[ast.Call] = []
    for node in ast_nodes.listed(tree):
        if not isinstance(node, ast.Call) or last_name(node.func) != "DataLoader":
            continue
        given = {k.arg: k.value for k in node.keywords if k.arg is not None}
        collate = given.get("collate_fn")
        if collate is None or collate_called(collate) not in collates:
            continue
        shuffle = given.get("shuffle")
        if (
            node.lineno in sharded
            or (shuffle is not None and not _false(shuffle))
            or any(not _false(given[k]) for k in ("sampler", "batch_sampler") if k in given)
        ):
            found.append(node)
    return found


def _false(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value in (False, None)


def mean_losses(tree: ast.Module) -> Iterator[tuple[int, int, str]]:
    """(line, col, spelling) of each mean loss over elements in `tree` whose input is not
    a masked selection (`x[mask]`: a mean over the count the mask selects, DP043)."""
    for node, spelling in mean_loss_nodes(tree):
        yield node.lineno, node.col_offset + 1, spelling


def mean_loss_nodes(tree: ast.Module) -> Iterator[tuple[ast.Call, str]]:
    """Each mean loss of `mean_losses`, its call and spelling."""
    objects = _cross_entropy_objects(tree)
    # `nn.MSELoss()(out, y)`: the call, whose arguments the batch reaches
    called = {id(n.func): n for n in ast_nodes.listed(tree) if isinstance(n, ast.Call)}
    for node in ast_nodes.listed(tree):
        if not isinstance(node, ast.Call):
            continue
        name = last_name(node.func)
        if _over_positions(node, objects):
            yield node, f"{ast.unparse(node.func)}{_OVER_POSITIONS}"
        elif isinstance(node.func, ast.Attribute) and name in _LOSS_FUNCTIONS:
            if _mean(node) and not any(isinstance(a, ast.Subscript) for a in node.args[:2]):
                yield node, ast.unparse(node.func)
        elif name in _LOSS_CLASSES and _mean(node) and not node.args:
            yield called.get(id(node), node), f"{ast.unparse(node.func)}()"
        elif name == "mean" and not node.keywords and _of_difference(node):
            yield node, "a mean of a difference"


def _cross_entropy_objects(tree: ast.Module) -> frozenset[str]:
    """The last names `tree` binds to a mean cross entropy built with no `ignore_index`
    (`self.loss_fn = nn.CrossEntropyLoss()`): called on flattened positions, a mean over
    every position of the padded batch."""
    return frozenset(
        last_name(node.targets[0])
        for node in ast_nodes.listed(tree)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.value, ast.Call)
        and last_name(node.value.func) in _CROSS_ENTROPY_CLASSES
        and _unmasked_mean(node.value)
    ) - {""}


def _over_positions(call: ast.Call, objects: frozenset[str]) -> bool:
    """Whether `call` is a mean cross entropy with no `ignore_index` (`F.cross_entropy`,
    `F.nll_loss`, or a call of one of `objects`) whose scores or targets are flattened
    into one row per position (`out.view(-1, C)`, `y.reshape(-1)`, `x.flatten(0, 1)`,
    `y_all.view(batch_size * length, C)`). Over a batch its collate pads per batch, each
    position is a row, padding included: each rank's mean divides by its own share's
    padded length (rows of one per sample are DataParallel's count: not this)."""
    name = last_name(call.func)
    function = isinstance(call.func, ast.Attribute) and name in _CROSS_ENTROPY_FUNCTIONS
    if not (function and _unmasked_mean(call)) and name not in objects:
        return False
    given = {k.arg: k.value for k in call.keywords if k.arg is not None}
    scores = [*call.args[:2], *(given[k] for k in ("input", "target") if k in given)]
    return any(_flattened(value) for value in scores)


def _unmasked_mean(call: ast.Call) -> bool:
    """A mean reduction (`_mean`) that leaves no class index out (an `ignore_index` makes
    the count the data's: DP043)."""
    return _mean(call) and all(k.arg != "ignore_index" for k in call.keywords)


def _flattened(value: ast.expr) -> bool:
    """`X.view(-1, ...)` / `X.reshape(-1)` / `X.view(a * b, ...)` / `X.flatten(...)`."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return False
    if value.func.attr == "flatten":
        return True
    if value.func.attr not in ("view", "reshape") or not value.args:
        return False
    first = value.args[0]
    if isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.USub):
        return isinstance(first.operand, ast.Constant) and first.operand.value == 1
    return isinstance(first, ast.BinOp) and isinstance(first.op, ast.Mult)


def _of_difference(call: ast.Call) -> bool:
    """`X.mean()` or `torch.mean(X)` with no dims, X elementwise of a difference of two
    tensors: `(a - b) ** 2`, `(a - b).abs()`, `torch.abs(a - b)`, `(a - b).pow(2)`."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if call.args and not (len(call.args) == 1 and last_name(func.value) == "torch"):
        return False
    value = call.args[0] if call.args else func.value
    while True:
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Sub):
            return True
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Pow):
            value = value.left
        elif isinstance(value, ast.Call) and last_name(value.func) in _ELEMENTWISE:
            if isinstance(value.func, ast.Attribute) and last_name(value.func.value) != "torch":
                value = value.func.value
            elif value.args:
                value = value.args[0]
            else:
                return False
        else:
            return False


def _mean(call: ast.Call) -> bool:
    for keyword in call.keywords:
        if keyword.arg == "reduction":
            return isinstance(keyword.value, ast.Constant) and keyword.value.value == "mean"
        if keyword.arg in ("size_average", "reduce", None):
            return False
    return True


def padded_mean_notes(
    trees: list[ast.Module],
    collates: frozenset[str],
    masking: frozenset[str] = frozenset(),
    sharded: Sequence[frozenset[int]] = (),
) -> Iterator[tuple[int, int, int, str]]:
    """(module index, line, col, spelling) of each mean loss of a program one of whose
    modules (`trees`) trains on a loader whose collate_fn is one of `collates` (the program's
    padding collates: `padding_collates` of each module), and of each call of a wrapped model
    handed the padded batch unmasked (padded_inputs): a mean loss in a function that loops
    over the padded loader is said only where the batch reaches it; `**batch` of a loader
    whose collates are all of `masking` (they return the mask among the batch's keys) hands
    the model its mask."""
    if not collates:
        return
    lines = [sharded[i] if i < len(sharded) else frozenset() for i in range(len(trees))]
    trains = [
        frozenset(map(id, training_loaders(t, collates, lines[i]))) for i, t in enumerate(trees)
    ]
    masks = [
        frozenset(map(id, training_loaders(t, collates & masking, lines[i])))
        for i, t in enumerate(trees)
    ]
    if not any(trains):
        return
    wrapped = {k: v for tree in trees for k, v in wrapped_models(tree).items()}
    blind = position_blind([fact for tree in trees for fact in layer_facts(tree)])
    unread = {k: v for tree in trees for k, v in unread_inputs(tree).items()}
    every = frozenset().union(*trains)
    makers = (
        loader_makers(trees, every),
        loader_makers(trees, every - frozenset().union(*masks)),
    )
    looped = [list(padded_loops(tree, trains[i], masks[i], makers)) for i, tree in enumerate(trees)]
    losses = [list(mean_loss_nodes(tree)) for tree in trees]
    scopes = [
        _functions(tree, [node for node, _ in found])
        for tree, found in zip(trees, losses, strict=True)
    ]
    helpers = reached_helpers(
        trees,
        [[(loop, derived) for loop, derived, _ in each] for each in looped],
        {f.name for each in scopes for f in each.values()},
    )
    for index, tree in enumerate(trees):
        loops = looped[index]
        followed = [(_enclosing(tree, loop), derived) for loop, derived, _ in loops]
        reached: set[str] = set()
        for loop, derived, keyed in loops:
            reached |= reached_spans(loop, derived)[1]
            for call in unmasked_model_calls(loop, derived, wrapped, blind, keyed, unread):
                what = f"{ast.unparse(call)}, handed the padded batch with no mask or lengths"
                if any(word in ast.unparse(call).lower() for word in ("mask", "len")):
                    what = (
                        f"{ast.unparse(call)}, handed the padded batch: the model's forward() "
                        "never reads the mask or lengths it is handed"
                    )
                yield index, call.lineno, call.col_offset + 1, what
        bound = _loss_names(tree)
        for node, spelling in losses[index]:
            scope = scopes[index].get(id(node))
            helper = helpers.get(id(scope)) if scope is not None else None
            # a loop of module code holds no function's loss: the helper's flow decides
            near = [f for f in followed if scope is None or not isinstance(f[0], ast.Module)]
            if spelling.endswith(_OVER_POSITIONS) and not _reached(node, near, helper):
                continue  # a cross entropy is per sample but where positions are its rows
            if _said(node, near, bound.get(id(node), ""), reached, bool(loops), helper):
                yield index, node.lineno, node.col_offset + 1, spelling


def masked_padding_notes(
    trees: list[ast.Module],
    paths: list[str],
    collates: frozenset[str],
    masking: frozenset[str] = frozenset(),
    sharded: Sequence[frozenset[int]] = (),
) -> Iterator[tuple[int, int, int, str]]:
    """(module index, line, col, spelling) of each training loader of `trees` given a
    padding collate (one of `collates`) whose loops hand a wrapped model the padded batch
    only with a mask or lengths beside it (DP151; an unmasked call is DP127's), unless
    every such model is proved to map each position alone (`position_blind`): the collate
    now pads each rank's share to the share's longest item, and that the model keeps the
    padding out of its real positions is not proved. `paths` name the modules (the
    collate's definition is named by path:line)."""
    if not collates:
        return
    defined = _collate_lines(trees, paths, collates)
    wrapped = {k: v for tree in trees for k, v in wrapped_models(tree).items()}
    blind: frozenset[str] | None = None
    unread: dict[str, Unread] = {}
    lines = [sharded[i] if i < len(sharded) else frozenset() for i in range(len(trees))]
    masks = frozenset(
        id(n)
        for i, t in enumerate(trees)
        for n in training_loaders(t, collates & masking, lines[i])
    )
    for index, tree in enumerate(trees):
        for loader in training_loaders(tree, collates, lines[index]):
            if blind is None:
                blind = position_blind([fact for t in trees for fact in layer_facts(t)])
                unread = {k: v for t in trees for k, v in unread_inputs(t).items()}
            made = loader_makers(trees, frozenset({id(loader)}))
            makers = (made, {} if id(loader) in masks else made)
            fed: list[str] = []
            for loop, derived, keyed in (
                found
                for t in trees
                for found in padded_loops(t, frozenset({id(loader)}), masks, makers)
            ):
                if any(unmasked_model_calls(loop, derived, wrapped, blind, keyed, unread)):
                    fed = []
                    break
                fed += fed_mixing(loop, derived, wrapped, blind)
            if fed:
                name = collate_name(loader)
                where = defined.get(name, "")
                what = f"its collate_fn {name}" + (f" ({where})" if where else "")
                how = (
                    "the model is handed a mask or lengths, not proved to keep the padding "
                    "out of every position it computes"
                )
                if all(fed):
                    how = f"the model is handed it by {fed[0]}, not followed there"
                yield (
                    index,
                    loader.lineno,
                    loader.col_offset + 1,
                    f"{what} pads each rank's share to the share's longest item; {how}",
                )


def _collate_lines(
    trees: list[ast.Module], paths: list[str], collates: frozenset[str]
) -> dict[str, str]:
    """`path:line` of the first definition (a function, a method, a class) of each name
    of `collates` in `trees`."""
    found: dict[str, str] = {}
    for tree, path in zip(trees, paths, strict=True):
        for node in ast_nodes.listed(tree):
            if (
                isinstance(node, ast.FunctionDef | ast.ClassDef)
                and node.name in collates
                and node.name not in found
            ):
                found[node.name] = f"{path}:{node.lineno}"
    return found


def _functions(
    tree: ast.Module, nodes: list[ast.Call]
) -> dict[int, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The innermost function of `tree` holding each of `nodes`, by the node's id."""
    if not nodes:
        return {}
    functions = [
        n for n in ast_nodes.listed(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    found: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in nodes:
        for function in functions:
            if _within(node, function) and (
                id(node) not in found or _within(function, found[id(node)])
            ):
                found[id(node)] = function
    return found


def _said(
    node: ast.Call,
    followed: list[tuple[ast.AST, set[str]]],
    bound: str,
    reached: set[str],
    looped: bool,
    helper: set[str] | None = None,
) -> bool:
    """Whether a mean loss is said: a loss object bound to a name of a module that loops
    over the padded loader where a call of that name is handed the batch; a loss call in a
    function that loops over it where it reads the batch; in a function called only from
    such loops, where it reads what those calls hand it (`helper`: reached_helpers); any
    other (not followed)."""
    if isinstance(node.func, ast.Attribute) or last_name(node.func) not in _LOSS_CLASSES:
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        inside = [derived for scope, derived in followed if _within(node, scope)]
        if inside:
            return any(names & derived for derived in inside)
        return helper is None or bool(names & helper)
    if last_name(node.func) in _LOSS_CLASSES and not node.args and bound and looped:
        return bound in reached
    return True


def _reached(
    node: ast.Call, followed: list[tuple[ast.AST, set[str]]], helper: set[str] | None
) -> bool:
    """Whether the padded batch reaches a loss call: it reads a name the loop over the
    padded loader binds (in that loop's function), or one a helper called only from such
    loops is handed (`reached_helpers`). A cross entropy over the flattened positions of
    another loader's batch (a validation pass, left whole) is not said."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    inside = [derived for scope, derived in followed if _within(node, scope)]
    return any(names & derived for derived in inside) or bool(helper and names & helper)


def _loss_names(tree: ast.Module) -> dict[int, str]:
    return {
        id(node.value): last_name(node.targets[0])
        for node in ast_nodes.listed(tree)
        if isinstance(node, ast.Assign) and len(node.targets) == 1
    }


def _enclosing(tree: ast.Module, loop: ast.For) -> ast.AST:
    """The innermost function of `tree` holding `loop`, else the module."""
    found: ast.AST = tree
    for node in ast_nodes.listed(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _within(loop, node):
            if found is tree or _within(node, found):
                found = node
    return found


def _within(node: ast.AST, scope: ast.AST) -> bool:
    if isinstance(scope, ast.Module):
        return True
    start, end = getattr(scope, "lineno", 0), getattr(scope, "end_lineno", 0) or 0
    return bool(start <= getattr(node, "lineno", -1) <= end)


def padded_batch_notes(
    program: Program, project: Project, results: Sequence[MigrationResult | None] = ()
) -> list[tuple[int, list[Diagnostic]]]:
    """DP127 at each mean loss of a program trained on batches its collate pads per batch,
    by module index; each module's padding collates computed once per project. `results`:
    the modules' migrations, whose records name the loaders sharded for training."""
    if not any(mentions(m.source.text, "collate_fn") for m in program.modules):
        return []
    collates = padding_collates(
        fact
        for m in program.modules
        for fact in project.remembered(
            ("padding facts", m.real, m.path), partial(_padding_facts, m)
        )
    )
    trees = [m.passing_tree() for m in program.modules] if collates else []
    told = [
        (name, masks)
        for m in program.modules
        if collates
        for name, masks in project.remembered(
            ("masking collates", m.real, m.path), partial(_masking_collates, m)
        )
    ]
    masking = frozenset(n for n, _ in told) - {n for n, masks in told if not masks}
    what = f"{title('DP127')}: {{}}"
    found: dict[int, list[Diagnostic]] = {}
    sharded = [
        frozenset(
            c.line
            for c in (r.changes if r is not None else ())
            if c.transform == "data" and "sharded with" in c.description
        )
        for r in results
    ]
    notes = padded_mean_notes(trees, collates, masking, sharded)
    for index, line, col, spelling in sorted(notes):
        found.setdefault(index, []).append(Diagnostic(line, col, "DP127", what.format(spelling)))
    paths = [m.path for m in program.modules]
    said = f"{title('DP151')}: {{}}"
    for index, line, col, spelling in masked_padding_notes(
        trees, paths, collates, masking, sharded
    ):
        found.setdefault(index, []).append(Diagnostic(line, col, "DP151", said.format(spelling)))
    return sorted(found.items())


def _padding_facts(module: ProgramModule) -> tuple[PaddingFact, ...]:
    return padding_facts(module.passing_tree())


def _masking_collates(module: ProgramModule) -> tuple[tuple[str, bool], ...]:
    return masking_collates(module.passing_tree())
