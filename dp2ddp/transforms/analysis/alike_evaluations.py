"""Values alike on every rank through an evaluation over a loader every rank reads whole
(the uniformity proof's facts for them, asked by uniformity.py; stop 53).

An early stop decided on the mean of a validation loss (`val = float(np.mean([crit(model(x),
y).item() for x, y in val_loader]))`, then `if bad >= patience: break`) is the same on every
rank where three facts hold, each proved here, none assumed:

1. The loader is left whole by the data pass (`loader_left_whole`): after that pass (the
   uniformity object is told so, `RankUniformity.loaders_placed`), a torch DataLoader built
   in the module with no sampler or batch sampler, no shuffling, and no function of the
   user's (a collate or worker-init function) is one every rank goes through in the same
   order: the data pass gives each loader it shards a sampler. Before that pass a loader
   with no sampler proves nothing (it may still be sharded).
2. Its dataset's contents are alike: its arguments are proved so by the uniformity proof
   (a `TensorDataset` of alike tensors: uniform_names.py), a torch draw with a generator of
   the program's own (`torch.randn(n, 4, generator=g)`) is alike where every binding of
   `g` is a generator seeded with an alike value and every read of `g` in the module is
   the `generator=` of a draw every rank reaches (`private_draw`): every rank draws the
   same numbers in the same order.
3. The wrapped model's output on the same input is alike (`wrapped_output`): every binding
   the def-use view says reaches the called name is a DistributedDataParallel wrap (its
   weights broadcast from rank 0 at the wrap and stepped with the all-reduced gradient),
   and torch's generator is seeded alike (seeded_streams.py: a dropout draws the same on
   every rank). A torch loss module (`nn.MSELoss()`: none holds a parameter) called on
   alike values returns an alike value (`loss_module`), and so does a loss function of
   torch.nn.functional (`F.mse_loss`, `F.cross_entropy`: `_loss_function`).

A comprehension's value (`comprehension_alike`) is alike where every iterable it draws from,
every filter and its element are; a name its own `for` binds is read in the comprehension's
scope (`comprehension_target`), not the enclosing one (the def-use view binds a
comprehension's targets in the enclosing scope: the `x` of `[... for x, y in val_loader]`
was taken for the training loop's `x`, a sharded loader's batch, and DP032 said `if bad >=
patience` may differ between ranks, false, in data_eval_early_stop_list_mean since stop 50).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.analysis.module_index import binds_name
from dp2ddp.transforms.analysis.seeded_streams import alike_streams

if TYPE_CHECKING:
    from dp2ddp.transforms.analysis.uniformity import RankUniformity

COMPREHENSIONS: Final = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_LOADERS: Final = frozenset(
    {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}
)
#: A loader's keywords that change neither which samples it yields nor their order.
_PLAIN_KEYWORDS: Final = frozenset(
    {"batch_size", "num_workers", "pin_memory", "drop_last", "timeout", "persistent_workers"}
    | {"prefetch_factor", "pin_memory_device"}
)
_WRAPS: Final = frozenset(
    {"torch.nn.parallel.DistributedDataParallel", "torch.nn.DistributedDataParallel"}
    | {"torch.nn.parallel.distributed.DistributedDataParallel"}
)
_GENERATORS: Final = frozenset({"torch.Generator", "torch._C.Generator"})


def comprehension_alike(
    u: RankUniformity,
    comp: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp,
    at: cst.CSTNode,
) -> bool:
    """Every iterable, filter and element of `comp` is alike (evaluated at `at`)."""
    parts: list[cst.BaseExpression] = []
    for_in: cst.CompFor | None = comp.for_in
    while for_in is not None:
        parts += [for_in.iter, *(f.test for f in for_in.ifs)]
        for_in = for_in.inner_for_in
    parts += [comp.key, comp.value] if isinstance(comp, cst.DictComp) else [comp.elt]
    return all(u.value(part, at) for part in parts)


def comprehension_target(u: RankUniformity, name: cst.Name, at: cst.CSTNode) -> bool | None:
    """`name` read inside a comprehension whose own `for` binds it: alike where what that
    `for` iterates is; None where no comprehension around the read binds it (the name is
    the enclosing scope's). The first iterable of a comprehension is read outside it."""
    parent = u.view.parent(name)
    while parent is not None and not isinstance(
        parent, (cst.BaseSmallStatement, cst.BaseCompoundStatement, cst.Lambda)
    ):
        if isinstance(parent, COMPREHENSIONS) and not _inside(u, name, parent.for_in.iter):
            for_in: cst.CompFor | None = parent.for_in
            while for_in is not None:
                if binds_name(for_in.target, name.value):
                    return u.value(for_in.iter, at)
                for_in = for_in.inner_for_in
        parent = u.view.parent(parent)
    return None


def _inside(u: RankUniformity, node: cst.CSTNode, root: cst.CSTNode) -> bool:
    current: cst.CSTNode | None = node
    while current is not None:
        if current is root:
            return True
        current = u.view.parent(current)
    return False


def alike_call(u: RankUniformity, call: cst.Call, at: cst.CSTNode, args: bool) -> bool:
    """A call the uniformity proof's rules for calls leave unproved, proved here (the module
    docstring): a loader left whole, a draw from a generator of the program's own, a seeded
    generator's construction, a torch loss module's construction or call, a wrapped model's
    output; `args`: whether its arguments are alike."""
    if not args:
        return False
    names = u.view.qualified_names(call.func)
    if names & _LOADERS:
        return loader_left_whole(u, call)
    if names & _GENERATORS or any(_loss_class(n) or _loss_function(n) for n in names):
        return True  # a fresh generator (torch's fixed default seed), a loss module or loss
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "manual_seed":
        receiver = func.value
        return isinstance(receiver, cst.Call) and bool(
            u.view.qualified_names(receiver.func) & _GENERATORS
        )  # `torch.Generator().manual_seed(5)`: seeded with an alike value
    if any(n.startswith("torch.") for n in names) and _generator_of(call) is not None:
        return private_draw(u, call)
    if isinstance(func, cst.Name):
        return loss_module(u, func) or wrapped_output(u, func)
    return False


def loader_left_whole(u: RankUniformity, call: cst.Call) -> bool:
    """Fact 1: a DataLoader the data pass left whole, in order, with no function of the
    user's (its dataset's contents are the arguments' question)."""
    if not u.loaders_placed:
        return False  # the data pass has not decided yet: it may shard this one
    for position, arg in enumerate(call.args):
        if arg.star:
            return False
        if arg.keyword is None:
            if position > 1:
                return False  # shuffle, sampler, ... given by position
            continue
        key = arg.keyword.value
        if key == "shuffle":
            if not (isinstance(arg.value, cst.Name) and arg.value.value == "False"):
                return False
        elif key not in _PLAIN_KEYWORDS:
            return False
    return True


def _generator_of(call: cst.Call) -> cst.Name | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "generator":
            return arg.value if isinstance(arg.value, cst.Name) else None
    return None


def private_draw(u: RankUniformity, call: cst.Call) -> bool:
    """Fact 2's draws: `call` draws from a generator `g` every binding of which reaching it
    is alike (seeded with an alike value), and every read of `g` in the module is the
    `generator=` of a draw every rank reaches: the same numbers on every rank."""
    generator = _generator_of(call)
    if generator is None or u.view.parent(generator) is None:
        return False
    flow = view(u.module)
    found = flow.reaching(generator)
    if not found or any(d.kind != "assign" or d.value is None for d in found):
        return False
    if not all(u.value(d.value, d.statement) for d in found if d.value is not None):
        return False
    targets = {id(d.target) for d in found}
    for node in walk(u.module):
        if not isinstance(node, cst.Name) or node.value != generator.value:
            continue
        if id(node) in targets:
            continue
        arg = u.view.parent(node)
        draw = u.view.parent(arg) if isinstance(arg, cst.Arg) else None
        if not (
            isinstance(arg, cst.Arg)
            and arg.keyword is not None
            and arg.keyword.value == "generator"
            and isinstance(draw, cst.Call)
            and u.why_not_reached(draw) is None
        ):
            return False  # read elsewhere, or a draw not every rank makes
    return True


def _loss_class(name: str) -> bool:
    """One of torch.nn's loss modules (torch.nn.modules.loss): none holds a parameter."""
    last = name.rpartition(".")[2]
    return (
        name.startswith("torch.nn.")
        and last.endswith("Loss")
        and last != "AdaptiveLogSoftmaxWithLoss"
    )


def _loss_function(name: str) -> bool:
    """One of torch.nn.functional's losses (`F.mse_loss(out, y)`, `F.cross_entropy`): a
    function of its arguments alone, no draw (stop 54 s4: a validation loss over a loader
    left whole decided `sched.step(vloss)`, DP090 said it was this rank's own)."""
    module, _, last = name.rpartition(".")
    return module == "torch.nn.functional" and (last.endswith("_loss") or last in _LOSSES)


#: torch.nn.functional's losses not named `..._loss`.
_LOSSES: Final = frozenset(
    {"cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"}
)


def _bound_calls(u: RankUniformity, func: cst.Name) -> list[tuple[cst.Call, cst.CSTNode]]:
    """The calls every binding reaching `func` assigns (empty where one assigns another
    value, or none reaches)."""
    if u.view.parent(func) is None:
        return []
    found = view(u.module).reaching(func)
    calls = [
        (d.value, d.statement)
        for d in found
        if d.kind == "assign" and isinstance(d.value, cst.Call) and not d.element
    ]
    return calls if found and len(calls) == len(found) else []


def loss_module(u: RankUniformity, func: cst.Name) -> bool:
    """`crit(...)` where every binding of `crit` is a torch loss module built from alike
    arguments."""
    bound = _bound_calls(u, func)
    return bool(bound) and all(
        any(_loss_class(n) for n in u.view.qualified_names(c.func)) and u.value(c, at)
        for c, at in bound
    )


def wrapped_output(u: RankUniformity, func: cst.Name) -> bool:
    """Fact 3: `model(...)` where every binding of `model` is a DistributedDataParallel
    wrap, and torch's generator is seeded alike on every rank."""
    bound = _bound_calls(u, func)
    if not bound or not all(u.view.qualified_names(c.func) & _WRAPS for c, _ in bound):
        return False
    key = ("torch seeded",)
    if key not in u.memo:  # once per module
        told = u.program.seeded_streams if u.program is not None else None
        u.memo[key] = "torch" in alike_streams(told, lambda: u.module.code)
    return u.memo[key]


def iterates_loader(u: RankUniformity, iterated: cst.BaseExpression) -> bool:
    """`iterated` is a name every binding reaching which is a DataLoader: its batches are
    alike where left whole, but what a model makes of them is fact 3's question, which
    per_rank.py's likely-culprit search (DP032's) leaves to the proof."""
    return isinstance(iterated, cst.Name) and any(
        u.view.qualified_names(c.func) & _LOADERS for c, _ in _bound_calls(u, iterated)
    )
