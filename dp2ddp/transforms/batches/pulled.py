"""Batches a training step pulls from a provider its callers hand it (round 24, class s72).

`def learn(model, opt, provider): x, y = provider.__next__(); loss = crit(model(x), y) ...`
in a module whose callers are other modules (kam1107/RealnessGAN@eaed6b2: the entry builds
`random_sample = DataProvider(...)`, a class of its own that shuffles a list and takes
batch_size items, and hands it to `learnD_Realness(param, D, G, optimizerD, random_sample,
...)` of training/learnD.py). The batch proof (proof.py) asked only the calls of a wrapped
model in a training loop of their module; the step function has no call here, so no loop,
and a batch pulled from a parameter was not followed further than the parameter (DP047
inside a loop of the step, nothing without one): every rank trained on the whole batch,
no word (DP005/DP037 missing; only verify said it).

The pull is this module's code, whatever the provider is: `next(p)`, `p.__next__()`,
`p.next()`, a method naming a batch (`p.get_batch()`, `p.next_batch()`, `p.sample(n)`) or a
slice of in-memory data (`X[i * n:(i + 1) * n]`) of `p`, a parameter of a function no call of
this module runs. Its batch is this rank's share where every call site of the program hands
`p` a loader the migration shards, or its iterator (`it = iter(loader)`:
facts.LoaderFeed, data/handoffs.py): proved, nothing changes (a second split would halve the
share). Otherwise it is data nobody split: split where the pull binds it, as DataParallel's
scatter split it at the model (`x, y = ddp_shard_batch((x, y))`: a tuple bound together
stays aligned), the pull inside `with ddp_same_random():` (the provider's code is not read
here: where it draws, every rank cuts its part of rank 0's draw). Where the pull binds no
plain names (`model(next(p))`), or its batch reaches no call of a wrapped model by a flow
dp2ddp follows (`x.copy_(images)`, RealnessGAN's buffer), DP037 names the pull.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, Origin, origins, view
from dp2ddp.transforms._support.nodes import NO_GRAD, calls_model, walk
from dp2ddp.transforms.analysis.fed_slots import fed_share
from dp2ddp.transforms.analysis.handed_wraps import handed_parameters
from dp2ddp.transforms.analysis.training import function_trains
from dp2ddp.transforms.batches.loops import _plain_target
from dp2ddp.transforms.batches.reordered import reordered

if TYPE_CHECKING:
    from dp2ddp.transforms.batches.proof import BatchProof

#: Methods that take the next item of an iterator.
_NEXT = frozenset({"__next__", "next"})
#: Words a method taking a batch from its object says (`get_batch`, `next_batch`, `sample`).
_BATCH_WORDS = ("batch", "next", "sample")


def pull_of(flow: DefUse, origin: Origin) -> cst.Call | cst.Subscript | None:
    """Where a value the walk followed to `origin` is pulled from a provider: `origin` is a
    parameter of a function no call of this module runs (its callers are other modules),
    first read by `next(p)`, `p.__next__()`, `p.next()`, a batch method of `p` or a slice of
    `p`: that call or subscript; else None."""
    param = origin.node
    if origin.kind != "parameter" or not isinstance(param, cst.Param) or len(origin.path) < 2:
        return None
    function = flow.function_around(param)
    if function is None or flow.call_sites(function):
        return None
    return _pull_around(flow, origin.path[1].node)


def _pull_around(flow: DefUse, use: cst.CSTNode) -> cst.Call | cst.Subscript | None:
    """The pull reading `use` (a name of the provider), see pull_of."""
    parent = flow.parent(use)
    if isinstance(parent, cst.Arg):
        call = flow.parent(parent)
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Name)
            and call.func.value == "next"
            and call.args[0] is parent
        ):
            return call
        return None
    if isinstance(parent, cst.Attribute) and parent.value is use:
        call = flow.parent(parent)
        method = parent.attr.value
        if not isinstance(call, cst.Call) or call.func is not parent:
            return None
        if method in _NEXT or any(w in method.lower() for w in _BATCH_WORDS):
            return call
        return None
    if isinstance(parent, cst.Subscript) and parent.value is use and len(parent.slice) == 1:
        if isinstance(parent.slice[0].slice, cst.Slice):
            return parent  # a slice of in-memory data handed in
    return None


def bare_step(proof: BatchProof, flow: DefUse, call: cst.Call) -> cst.FunctionDef | None:
    """The step function around `call` where it has no training loop of its own module: a
    function (not under `torch.no_grad()`) that trains itself, that no call of this module
    runs (its callers are other modules), and one of whose inputs of `call` is pulled
    from a parameter (pull_of). The proof then takes the function's body as the step."""
    function = None
    for ancestor in flow.ancestors(call):
        if isinstance(ancestor, (cst.Lambda, cst.ClassDef)):
            return None
        if isinstance(ancestor, cst.With) and any(
            proof.matches(_called(item.item), NO_GRAD) for item in ancestor.items
        ):
            return None
        if isinstance(ancestor, cst.FunctionDef):
            function = ancestor
            break
    known = flow.functions.get(function) if function is not None else None
    if function is None or known is None or flow.call_sites(known):
        return None
    if any(proof.matches(_called(d.decorator), NO_GRAD) for d in function.decorators):
        return None
    if not function_trains(function, proof.qualified_names):
        return None
    for arg in call.args:
        if any(pull_of(flow, o) is not None for o in origins(flow, arg.value)):
            return function
    return None


def split_pulled(
    proof: BatchProof, flow: DefUse, call: cst.Call, value: cst.BaseExpression, origin: Origin
) -> bool:
    """Split the batch a step pulls from a provider (pull_of) where the pull binds it, its
    names together (inputs and targets stay aligned), a call pulling it in `with
    ddp_same_random():`; False after DP037 where it binds no plain names."""
    pull = pull_of(flow, origin)
    assert pull is not None
    statement = flow.statement_of(pull)
    assign = _binding(statement, pull)
    inside = [i for i, step in enumerate(origin.path) if proof._inside(step.node, statement)]
    if assign is not None and inside and reordered(origin.path[inside[-1] + 1 :]):
        return proof._split_at_call(flow, origin)  # its axes move before the model's call
    if assign is not None and proof._split_after_binding(flow, assign, origin):
        if isinstance(pull, cst.Subscript):
            return True  # a slice draws nothing
        if statement not in proof._same_random and proof._outside_same_random(statement):
            proof._draw_alike_at(
                statement,
                f"{proof.code(pull)} takes the batch from an object the callers hand (its "
                "code is not read here): taken alike on every rank (ddp_same_random), so the "
                "ranks' parts are of one batch",
            )
        return True
    given = "it" if value is pull else proof.code(value)
    _say(
        proof,
        pull,
        f"it is bound to no plain names where it is taken, so {given} is not split with "
        f"the rest of its batch where {proof.code(call.func)}() is given it",
    )
    return False


def _binding(statement: cst.CSTNode, pull: cst.CSTNode) -> cst.Assign | None:
    """The one assignment of `statement` whose value is `pull`, or an item or attribute of
    it (`x = next(p)[0]`), bound to plain names."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    value: cst.BaseExpression = assign.value
    while value is not pull and isinstance(value, (cst.Subscript, cst.Attribute)):
        value = value.value
    if value is not pull or not _plain_target(assign.targets[0].target):
        return None
    return assign


def warn_unreached_pulls(proof: BatchProof, module: cst.Module, wrapped: set[str]) -> None:
    """DP037 at each pull from a provider (pull_of) in a function that trains and calls a
    wrapped model whose batch the proof did not split nor prove this rank's share: it
    reaches the model by no flow dp2ddp follows (RealnessGAN's `x.copy_(images)` into a
    buffer its caller made), so nothing is split and every rank trains on the whole batch."""
    flow = view(module)
    for function, param, pull in _pulls(proof, flow, wrapped):
        statement = flow.statement_of(pull)
        if pull in proof._warned or statement in proof._split_after:
            continue  # said, or split
        if not proof._outside_same_random(statement):
            continue  # migrated before: taken alike, and split after
        if fed_share(flow, param, proof.state.loaders.fed):
            continue  # a sharded loader's iterator at every call site: this rank's share
        _say(
            proof,
            pull,
            f"the batch is followed to no call of a wrapped model in {function.name.value}() "
            "(copied into a buffer, held in a container, or given to a model that is a wrap "
            "only under a condition), so it is not split where it is taken",
        )


def _pulls(
    proof: BatchProof, flow: DefUse, wrapped: set[str]
) -> Iterator[tuple[cst.FunctionDef, cst.Param, cst.Call | cst.Subscript]]:
    """(function, parameter, pull) for each pull of a parameter in a function no call of
    this module runs that trains and calls one of `wrapped`, or a parameter another
    module's call may hand a wrap (ProgramHints.wrap_parameters and wrap_reaches: RealnessGAN
    wraps D under `if param.n_gpu > 1:`)."""
    bare = {w for w in wrapped if w.isidentifier()}
    hints = proof.state.hints
    handed = handed_parameters(  # a wrap another module's call may hand (a guarded one too)
        flow,
        lambda a: isinstance(a, cst.Name) and a.value in bare,
        hints.wrap_parameters | hints.wrap_reaches,
    )
    for known in flow.functions.values():
        function = known.node
        if not isinstance(function, cst.FunctionDef) or flow.call_sites(known):
            continue
        models = wrapped | handed.get(function, frozenset())
        calls = [n for n in walk(function.body) if isinstance(n, cst.Call)]
        if not any(calls_model(c, models) for c in calls):
            continue
        if not function_trains(function, proof.qualified_names):
            continue
        params = {p.name.value: p for p in known.params}
        for node in walk(function.body):
            if not isinstance(node, cst.Name) or node.value not in params:
                continue
            if not any(d.target is params[node.value] for d in flow.definitions(node)):
                continue
            pull = _pull_around(flow, node)
            if pull is not None:
                yield function, params[node.value], pull


def _say(proof: BatchProof, pull: cst.Call | cst.Subscript, why: str) -> None:
    proof._warned.add(pull)
    proof._unproved.add("DP037")
    provider = pull.value if isinstance(pull, cst.Subscript) else _receiver(pull)
    proof.warn(
        pull,
        "DP037",
        f"{proof.code(pull)} takes a batch from {proof.code(provider)}, a provider the "
        f"callers hand: {why}; every rank trains on the whole batch",
    )


def _receiver(call: cst.Call) -> cst.BaseExpression:
    """`p` of `next(p)` or `p.m()`."""
    if isinstance(call.func, cst.Attribute):
        return call.func.value
    return call.args[0].value


def _called(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.func if isinstance(expr, cst.Call) else expr
