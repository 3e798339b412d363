"""Parameters the optimizer trains that no DDP wrapper holds (tjddus9597/Proxy-Anchor-CVPR2020's
loss with trainable proxies: `param_groups.append({'params': criterion.parameters()})`).

DataParallel ran such a module once, on the gathered batch, on one device: its gradient was
the whole batch's. Migrated, each rank's backward gives the gradient of its own share, the
optimizer steps on it, and the ranks' copies drift apart while DDP keeps the model alike.
So `ddp_sync_module(X)` (templates/helpers/sync_module.py.j2: rank 0's values now, every
gradient averaged as backward accumulates it) follows the statement that hands
`X.parameters()` to an optimizer: inside the optimizer's call, or a statement that binds or
extends a name the call reads (`params = [...]`, `params += ...`, `groups.append(...)`); after
each such statement, since branches may each hand them over (the call is idempotent: a
second one on the same module returns at once, on every rank alike).

Which X: a name or attribute chain whose `.parameters()` is taken, bound in the module only
by calls that build it (not a name handed on: `self.model = model` may be the wrap), in a
module that wraps a model in DataParallel; not a wrapped model or a part of one (`model`,
`model.module`, `model.module.head`, the wrap's argument `net` of `model = DataParallel(net)`,
`m.net` where a class wraps `self.net`), nor the owner of a submodule wrapped in place (DP042
says that). An attribute chain `P.attr` bound nowhere in the module itself is built when
every binding of P constructs one of the module's classes whose methods bind `self.attr`
only by constructions (`_built_member`): a layer beside a wrapped child of a parent that is
not wrapped (stop 41 class v3-E, vsepp's `img_enc.fc` beside `img_enc.cnn`). The call is
a collective: it goes only where every rank reaches it (uniformity.py); elsewhere DP068
names the place.

The same drift hits parameters of the wrapped model that are frozen when DDP wraps it
(`requires_grad` False: a frozen BatchNorm, a warm-up) and unfrozen later: DDP's reducer
holds the parameters that required grad at the wrap, so it never averages theirs
(Proxy-Anchor unfreezes its backbone, BatchNorm weights included, after a warm-up epoch).
In a module that sets `requires_grad` to True on parameters, `ddp_sync_frozen(T)` follows
each wrap (templates/helpers/sync_frozen.py.j2): it hooks the averaging onto the parameters
frozen then. Right after the wrap, it is reached as the wrap (itself a collective) is.

DP069 is given where no sync covers an optimizer over a model proved unwrapped: its proof
is analysis/unwrapped_models.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.nodes import (
    code_of,
    enclosing_function,
    name_of,
    nodes_of,
    unmoved,
    walk,
    wrap_target,
)
from dp2ddp.transforms.analysis.built_by import built_by, sequential_parts
from dp2ddp.transforms.analysis.grown_models import GrownModels
from dp2ddp.transforms.analysis.handed_parameters import handed, stored_from, unproved
from dp2ddp.transforms.analysis.handed_parameters import wraps as wraps_value
from dp2ddp.transforms.analysis.held_parameters import HeldParameters
from dp2ddp.transforms.analysis.iterated_modules import Iteration, iterated, place_each
from dp2ddp.transforms.analysis.module_index import binds_name
from dp2ddp.transforms.analysis.outside_tensors import (
    place_tensor_sync,
    read_names,
    trained_tensors,
)
from dp2ddp.transforms.analysis.reinit import ReinitBroadcasts
from dp2ddp.transforms.analysis.trainer_classes import planned_part
from dp2ddp.transforms.analysis.uniformity import RankUniformity
from dp2ddp.transforms.analysis.unwrapped_models import keeps_itself, unwrapped_optimizers
from dp2ddp.transforms.analysis.wrap_calls import wrapper_results

if TYPE_CHECKING:
    from dp2ddp.transforms._support.base import MigrationTransform

HELPER = "ddp_sync_module"
FROZEN = "ddp_sync_frozen"
#: Methods that add to a list or dict of parameter groups in place.
_GROWING = frozenset({"append", "extend", "insert", "update", "add"})


def _optimizer(names: set[str]) -> bool:
    """A torch optimizer class (`torch.optim.SGD`, `torch.optim.adamw.AdamW`), not a
    scheduler or the base class."""
    return any(
        name.startswith("torch.optim.")
        and ".lr_scheduler" not in name
        and ".swa_utils" not in name
        and name.rsplit(".", 1)[-1][:1].isupper()
        and name.rsplit(".", 1)[-1] != "Optimizer"
        for name in names
    )


def _run_time_callee(call: cst.Call, t: MigrationTransform, defined: set[str]) -> bool:
    """The callee is decided at run time, so it may be an optimizer class: a subscript or a
    call's result (`config['opt']['type'](...)`, `getattr(optim, name)(...)`), or a bare name
    with no qualified name beyond itself that no def/class of the module binds (`OPT =
    torch.optim.SGD`, `opt_cls = cfg.optimizer`). stop 44 v1-B, euwern/proxynca_pp@217233d:
    Adam picked by a JSON configuration trained the loss's proxies on each rank's share."""
    func = call.func
    if isinstance(func, (cst.Subscript, cst.Call)):
        return True
    if not isinstance(func, cst.Name) or func.value in defined:
        return False
    names = t.qualified_names(func)
    return not any("." in n for n in names)


def _hands_parameters(call: cst.Call) -> bool:
    """The call's first argument (or `params=`) holds parameters an optimizer would take: a
    `X.parameters()` call, or a parameter group (a dict with a "params" key), at any depth
    (`[{**{'params': list(m.parameters())}, 'lr': 0}, ...]`)."""
    first = next((a for a in call.args if a.keyword is None and a.star == ""), None)
    keyed = next(
        (a for a in call.args if a.keyword is not None and a.keyword.value == "params"), None
    )
    arg = first or keyed
    if arg is None:
        return False
    for node in walk(arg.value):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "parameters"
        ):
            return True
        if isinstance(node, cst.DictElement) and isinstance(node.key, cst.SimpleString):
            if node.key.evaluated_value == "params":
                return True
    return False


def _chain(expr: cst.BaseExpression) -> bool:
    """A name or a chain of attributes of one (`criterion`, `self.loss_fn`)."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name)


def _within(code: str, roots: set[str]) -> bool:
    return any(code == r or code.startswith(r + ".") for r in roots)


class OutsideParameters:
    """Asked by the model-wrap pass `t` (which owns the warnings and records)."""

    def __init__(self, t: MigrationTransform, is_wrap: Callable[[cst.CSTNode], bool]) -> None:
        self.t = t
        self._is_wrap = is_wrap
        #: id of an original statement line -> the calls to insert after it.
        self._after: dict[int, list[str]] = {}
        self.frozen_returns: set[int] = set()  # ids of `return DP(net)` ddp_sync_frozen holds
        #: Weights re-initialised after the wrap (analysis/reinit.py), whose broadcasts go
        #: into the same blocks: `after` inserts both.
        self.reinit = ReinitBroadcasts(t)
        #: Calls that grow a wrapped model after its wrap (DP098).
        self.grown = GrownModels(t, is_wrap)

    def note(self, original: cst.Call, updated: cst.Call) -> None:
        """A call the pass left (not a wrap): asked for re-inits and growth."""
        self.reinit.note(original, updated)
        self.grown.note(original)

    def plan(self, module: cst.Module, wrappers: frozenset[str]) -> None:
        """Find the modules to sync in `module` (its original tree, before any edit);
        `wrappers`: the program's functions that return a wrap (`self._build_model()`).
        Then DP069 for each optimizer over a model proved unwrapped (`unwrapped_optimizers`)
        that no sync here covers: one answer to which trained models DDP keeps alike."""
        synced = self._plan_syncs(module, wrappers)
        self.grown.plan(module, wrappers, self._line)
        for line, statement in self.grown.rewraps:
            self._after.setdefault(id(line), []).append(statement)
        others = frozenset(self.t.state.facts.wrap_functions)
        found = unwrapped_optimizers(
            module, self._plain_optimizer, self._is_wrap, others, self.t.qualified_names
        )
        for optimizer, model in found:
            if (self.t.input_position(optimizer)[0], model) not in synced:
                self.t.warn(
                    optimizer,
                    "DP069",
                    f"{self.t.code(optimizer.func)}(...) trains the parameters of {model}: "
                    f"{model} is not wrapped, so each rank would train its own copy",
                )

    def _plain_optimizer(self, call: cst.Call) -> bool:
        """DP069's optimizer: a class of torch.optim spelled at its top level (not a
        scheduler), by qualified name."""
        return any(
            n.startswith("torch.optim.") and n.count(".") == 2 and "lr_scheduler" not in n
            for n in self.t.qualified_names(call.func)
        )

    def _plan_syncs(self, module: cst.Module, wrappers: frozenset[str]) -> set[tuple[int, str]]:
        """Plan the syncs; returns (input line of the optimizer's call, X) for each X whose
        `X.parameters()` an optimizer's call takes and this plan syncs, or names with DP068."""
        t = self.t
        synced: set[tuple[int, str]] = set()
        wraps = [n for n in nodes_of(module, cst.Call) if self._is_wrap(n)]
        # `model = generate_model(args)`: a wrap built elsewhere (stop 46 class v3-B)
        built_wraps = wrapper_results(module, t, wrappers, self._is_wrap)
        ours = planned_part(module, t, bool(wraps or built_wraps))  # a library's trainers
        if ours is None:
            return synced
        wrapped = set(t.state.wrapped) | built_wraps.spelled
        unfreezes = _unfreezes(module) or bool(t.state.facts.unfreezes)
        for call in wraps:
            target = wrap_target(call, t)
            if target is None and unfreezes and isinstance(t.parent(call), cst.Return):
                self.frozen_returns.add(id(call))  # `return DP(net)`: model_wrap.py wraps it
                t.state.helpers.add("sync_frozen")
                t.record(call, f"parameters frozen at the wrap may be unfrozen: {FROZEN}(...)")
            if target is not None:
                wrapped.add(target)
                line = self._line(call)
                if unfreezes and line is not None:
                    self._after.setdefault(id(line), []).append(f"{FROZEN}({target})")
                    t.state.helpers.add("sync_frozen")
                    t.record(
                        call,
                        f"parameters of {target} frozen at the wrap and unfrozen later: "
                        f"{FROZEN}({target}) after the wrap averages their gradients",
                    )
            first = next(
                (a for a in call.args if a.keyword is None or a.keyword.value == "module"), None
            )
            if first is not None:
                wrapped.add(t.code(first.value))
                # `model = nn.Sequential(feat, emb)` wrapped: feat and emb are inside DDP
                parts = sequential_parts(t, built_by(t, first.value))
                wrapped.update(t.code(part) for part in parts)
        owners = {w.rsplit(".", 1)[0] for w in wrapped if "." in w}
        # `self.net = DataParallel(self.net)` in a class: `model.net` outside it is that wrap
        members = {w[len("self") :] for w in wrapped if w.startswith("self.")}
        defined = {
            n.name.value for n in walk(module) if isinstance(n, (cst.FunctionDef, cst.ClassDef))
        }
        optimizers = [
            n
            for n in nodes_of(module, cst.Call)
            if _optimizer(t.qualified_names(n.func))
            or (_run_time_callee(n, t, defined) and _hands_parameters(n))
        ]
        if not optimizers:
            return synced
        #: id of a node inside an optimizer's call -> that call
        inside = {id(node): call for call in optimizers for node in walk(call)}
        read = read_names(arg.value for call in optimizers for arg in call.args)
        uniform: RankUniformity | None = None
        done: set[tuple[int, str]] = set()
        found: list[tuple[cst.CSTNode, str, tuple[str, str] | None]] = []

        def kept(x: str, held: bool = False) -> bool:  # not the wrapped model, nor a part of it
            if x == "self" or _within(x, wrapped) or x in owners:
                return False  # `model.net` for a class's `self.net = DP(...)`: read, if held
            return held or not any(x.endswith(m) or m + "." in x for m in members)

        for node in nodes_of(module, cst.Call):
            if not (
                not node.args
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "parameters"
                and _chain(node.func.value)
                and ours(node)  # a library: its trainers' only
            ):
                continue
            x = t.code(node.func.value)
            each = iterated(node, x, t)
            if each is not None and not each.reads(wrapped, t):  # `[c.parameters() for c in R]`
                uniform = uniform or RankUniformity.for_pass(t, module)
                seen = (inside, read, view(module))
                self._sync_each(node, x, each, seen, (done, synced), uniform)
                continue
            if not kept(x) or built_wraps.holds(node.func.value, lambda: view(module)):
                continue
            scope = _scope(node, x, t)
            subject, reasons = "", list[str]()
            if not (
                _built(scope or module, x, t, wrappers, self._is_wrap, wrapped)
                or _built_member(module, x, t, wrappers, self._is_wrap)
            ):
                subject, reasons = unproved(node, scope, x, t, self._is_wrap, wrapped)
                if not reasons:
                    continue
            why = (
                f"{subject}, but {', '.join(reasons)}: it is not proved to be (inside) a wrapped "
                f"model, and {HELPER}({x}) was not placed; if it is not, each rank trains its "
                "own copy"
            )
            found.append((node, x, ("DP119", why) if reasons else None))
        # `baseline.get_learnable_parameters()`: a module held by a plain object
        held = HeldParameters(t, module, self._is_wrap, wrappers)
        feeding = lambda n: (line := self._line(n)) is not None and _feeds(line, read)  # noqa: E731
        for h in held.found(optimizers, feeding):
            why = (
                f"{h.x}'s parameters reach the optimizer through {t.code(h.node)}, but "
                f"{', '.join(h.reasons)}: {HELPER} was not placed; if no wrapped model "
                "holds it, each rank trains its own copy"
            )
            if kept(h.x, held=True) and ours(h.node):  # DP218: which, or built, not proved
                found.append((h.node, h.x, ("DP218", why) if h.reasons else None))
        for at, x, warning in found:
            line = self._line(at)
            if line is None or (id(line), x) in done:
                continue
            if not (id(at) in inside or _feeds(line, read)):
                continue
            done.add((id(line), x))
            optimizer = inside.get(id(at))
            if optimizer is not None:
                synced.add((t.input_position(optimizer)[0], x))  # no DP069: synced, or DP068
            if warning:
                t.warn(at, *warning)
                continue
            uniform = uniform or RankUniformity.for_pass(t, module)
            where = self._unreached(at, line, uniform)
            if where is None:
                self._after.setdefault(id(line), []).append(f"{HELPER}({x})")
                t.state.helpers.add("sync_module")
                t.record(
                    at,
                    f"{x}'s parameters are trained outside DistributedDataParallel: "
                    f"{HELPER}({x}) after they reach the optimizer (rank 0's values, "
                    "gradients averaged over the ranks)",
                )
            else:
                t.warn(
                    at,
                    "DP068",
                    f"{x}.parameters() reaches the optimizer {where}, so {HELPER}({x}) "
                    "could not be placed where every rank reaches it",
                )
        for name, line, many in trained_tensors(module, t, optimizers, self._line, _feeds):
            if not ours(name):  # a library: its trainers' only
                continue
            uniform = uniform or RankUniformity.for_pass(t, module)
            where = (
                "in no block of statements"
                if line is None
                else self._unreached(name, line, uniform)
            )
            place_tensor_sync(t, self._after, name, line, where, many)
        return synced

    def _sync_each(
        self,
        node: cst.Call,
        x: str,
        each: Iteration,
        seen: tuple[dict[int, cst.Call], set[str], DefUse],
        marks: tuple[set[tuple[int, str]], set[tuple[int, str]]],
        uniform: RankUniformity,
    ) -> None:
        """`x.parameters()` for each `x` of a sequence reaches an optimizer (stop 48 class r2-A,
        AberHu/Knowledge-Distillation-Zoo@65470c8: `SGD(chain(snet.parameters(),
        *[c.parameters() for c in criterionKD[1:]]))`, VID's regressors): `for x in ITER:
        ddp_sync_module(x)` after the line, the comprehension's clauses read again there
        (iterated_modules.py; DP068 where they may not give the same). Each element is a
        module (its `.parameters()` was taken); at run time the helper returns at once for a
        DDP wrap, and for a module inside one it averages gradients DDP averages too, which
        changes no value."""
        t = self.t
        inside, read, defs = seen
        done, synced = marks
        line = self._line(node)
        key = (id(line), f"{x} {id(each.each)}")  # one per comprehension of the line
        if line is None or key in done or not (id(node) in inside or _feeds(line, read)):
            return
        done.add(key)
        optimizer = inside.get(id(node))
        if optimizer is not None:
            synced.add((t.input_position(optimizer)[0], x))
        where = self._unreached(node, line, uniform)
        place_each(t, self._after, node, each, (line, where, defs))

    def _line(self, node: cst.CSTNode) -> cst.SimpleStatementLine | None:
        """The statement line holding `node`, when it stands in a block of statements."""
        current = self.t.parent(node)
        while current is not None and not isinstance(current, cst.SimpleStatementLine):
            if isinstance(
                current, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.BaseCompoundStatement)
            ):
                return None
            current = self.t.parent(current)
        if current is None or not isinstance(
            self.t.parent(current), (cst.IndentedBlock, cst.Module)
        ):
            return None
        return current

    def _unreached(
        self, node: cst.CSTNode, line: cst.SimpleStatementLine, uniform: RankUniformity
    ) -> str | None:
        """Why not every rank may reach the statement after `line` (None: every rank does)."""
        around = uniform.rank_dependent_around(line)
        if around is not None:
            return "under a condition or loop that may differ between ranks"
        if uniform.left_before(line) is not None:
            return "after a statement that may leave early on some ranks"
        if any(isinstance(s, cst.Raise) for s in line.body):
            return "in a statement that raises"
        function = enclosing_function(node, self.t)
        if function is not None and (
            uniform.unreached_call(function) is not None
            or uniform.unreached_elsewhere(function) is not None
        ):
            return f"in {function.name.value}(), which not every rank calls"
        return None

    def after(
        self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]
    ) -> list[cst.BaseStatement] | None:
        """A block's statements (`original`, and as this pass left them, `updated`) with the
        re-initialisations' broadcasts and the planned calls inserted (None: unchanged). The
        pass removes a statement only for a replication patch: where the two lengths differ,
        lines are matched by identity alone and a planned line there is dropped with DP068."""
        planned: dict[int, list[str]] = {}
        if len(original) == len(updated):
            for old, new in zip(original, updated, strict=True):
                if id(old) in self._after:
                    planned[id(new)] = self._after.pop(id(old))
        else:  # a statement became several (a wrap hoisted out of its guard): the same line
            for old in original:
                same = [n for n in updated if n is old or n.deep_equals(old)]
                calls = self._after.pop(id(old), [])
                if len(same) == 1 and calls:
                    planned.setdefault(id(same[0]), []).extend(calls)
                for call in calls if len(same) != 1 else ():
                    self.t.warn(old, "DP068", f"{call} was not placed (the block changed)")
        edited = self.reinit.broadcast_after(updated)
        if not planned:
            return edited
        out: list[cst.BaseStatement] = []
        for stmt in updated if edited is None else edited:
            syncs = [cst.parse_statement(f"{c}\n") for c in planned.pop(id(stmt), ())]
            returns = isinstance(stmt, cst.SimpleStatementLine) and any(
                isinstance(s, cst.Return) for s in stmt.body
            )
            # `return torch.optim.SGD(...)`: X exists before the line, so the sync goes first
            out.extend([*syncs, stmt] if returns else [stmt, *syncs])
        return out


def _scope(node: cst.CSTNode, x: str, t: MigrationTransform) -> cst.FunctionDef | None:
    """The function whose local `x` (a bare name) the read at `node` is: the innermost one
    around it that binds `x` itself (a parameter, or a binding in its own body); None: the
    name is the module's, or `x` is an attribute chain. Another function's parameter or local
    of the same name is another variable (DeepSDF's `load_latent_vectors(..., lat_vecs)`
    beside `main_function`'s `lat_vecs = torch.nn.Embedding(...)`, stop 31 class D1)."""
    if "." in x:
        return None
    function = enclosing_function(node, t)
    while function is not None:
        if _binds_locally(function, x):
            return function
        function = enclosing_function(function, t)
    return None


def _binds_locally(function: cst.FunctionDef, x: str) -> bool:
    """`x` is local to `function`: one of its parameters, or bound in its own body (not in a
    nested scope) and not declared `global`/`nonlocal` there."""
    params = function.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    stars = [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    if any(p.name.value == x for p in (*every, *stars)):
        return True
    bound = False
    for node in walk(function.body, skip_scopes=True):
        if isinstance(node, (cst.Global, cst.Nonlocal)) and any(
            n.name.value == x for n in node.names
        ):
            return False
        if isinstance(node, cst.AssignTarget):
            bound = bound or binds_name(node.target, x)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For)):
            bound = bound or binds_name(node.target, x)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            bound = bound or binds_name(node.asname.name, x)
        elif isinstance(node, cst.NamedExpr):
            bound = bound or binds_name(node.target, x)
    return bound


def _built(
    module: cst.CSTNode,
    x: str,
    t: MigrationTransform,
    wrappers: frozenset[str],
    is_wrap: Callable[[cst.CSTNode], bool],
    wrapped: set[str],
) -> bool:
    """Every binding of `x` in `module` (the module, or the function whose local `x` is:
    `_scope`) builds an object with a call (`ProxyLoss(...)`,
    `losses.X(...).to(DEVICE)`) of no function that wraps, and there is one: a name handed
    on (`self.model = model`, a function's parameter) or a wrapping builder's return
    (`self.model = self._build_model()`) may be the wrapped model under another name. For
    the module's own `x` (a bare name), a function's local or parameter of that name is
    another variable and is not counted (stop 46 class v3-B, Driver-Anomaly-Detection:
    `model_head` built in the script and also the name of `train()`'s parameter). A
    parameter counts by what this module's calls of its function pass it (`handed`:
    `train(student, teacher)` after `student = Net()`, stop 47); none, or a wrap, is not
    a construction. An attribute stored from a method's parameter (`self.teacher = teacher`)
    counts by what the parameter is handed (analysis/handed_parameters.py)."""
    values: list[cst.BaseExpression | None] = []
    kinds = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.WithItem, cst.Param)
    own = isinstance(module, cst.Module) and "." not in x
    for node in nodes_of(module, kinds):
        if own and _scope(node, x, t) is not None:
            continue
        before = len(values)
        if isinstance(node, cst.Assign):
            if any(t.code(target.target) == x for target in node.targets):
                values.append(node.value)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and t.code(node.target) == x:
            values.append(node.value)
        stored = values[-1] if len(values) > before and "." in x else None
        param = stored_from(stored, t) if isinstance(stored, cst.Name) else None
        if param is not None:
            values[-1:] = _handed_models(param, t, is_wrap, wrapped)
        if values and values[-1] is not None and keeps_itself(values[-1], x, t.code):
            values.pop()  # `x = x.double() if f else x`: what x held (its other bindings)
        elif isinstance(node, (cst.For, cst.WithItem)):
            bound = node.target if isinstance(node, cst.For) else node.asname
            if bound is not None and x in t.code(bound):
                values.append(None)
        elif isinstance(node, cst.Param) and node.name.value == x:
            values += _handed_models(node, t, is_wrap, wrapped)
    return bool(values) and all(_builds(v, wrappers) for v in values)


def _handed_models(
    param: cst.Param,
    t: MigrationTransform,
    is_wrap: Callable[[cst.CSTNode], bool],
    wrapped: set[str],
) -> list[cst.BaseExpression | None]:
    """What the calls hand `param`, [None] where one hands a wrap."""
    found = handed(param, t, wrapped)
    return [None] if any(v is not None and wraps_value(v, is_wrap) for v in found) else found


def _built_member(
    module: cst.Module,
    x: str,
    t: MigrationTransform,
    wrappers: frozenset[str],
    is_wrap: Callable[[cst.CSTNode], bool],
) -> bool:
    """`x` is `P.attr` with no binding of its own in the module, where every binding of
    `P` builds an object of one of this module's classes (the def-use view's
    `class_called`, also through a factory function: `_classes_built`) whose methods bind
    `self.attr` only by constructions that do not wrap (its `attribute_definitions`): a
    layer beside a wrapped submodule of the same parent (vsepp's `self.img_enc.fc` next to
    `self.cnn = self.get_cnn()`, stop 41 class v3-E). The parent holds a wrap but is not
    one, so nothing else averages that layer."""
    if "." not in x:
        return False
    parent, attr = x.rsplit(".", 1)
    definitions = view(module)
    classes: list[cst.ClassDef] = []
    for node in nodes_of(module, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
        if not isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            continue
        targets = (
            [a.target for a in node.targets] if isinstance(node, cst.Assign) else [node.target]
        )
        if any(t.code(target) == x for target in targets):
            return False  # bound here: `_built` answers
        if not any(t.code(target) == parent for target in targets):
            continue
        value = _unmoved(node.value)
        if not isinstance(value, cst.Call) or is_wrap(value):
            return False
        built = _classes_built(definitions, value)
        if not built:
            return False
        classes += built
    if not classes:
        return False
    for owner in classes:
        values = [d.value for d in definitions.attribute_definitions(owner, attr)]
        if not values or not all(
            _builds(v, wrappers)
            and v is not None
            and not any(is_wrap(n) for n in nodes_of(v, cst.Call))
            for v in values
        ):
            return False
    return True


def _classes_built(definitions: DefUse, call: cst.Call) -> list[cst.ClassDef]:
    """The module's classes `call` builds: the class it instantiates, or, for a function of
    the module (a factory: vsepp's `EncoderImage(...)` choosing between two encoders), the
    class of each value it returns (a construction, or a name bound by one). Empty where
    any is not known."""
    owner = definitions.class_called(call)
    if owner is not None:
        return [owner]
    functions = definitions.callees(call) if isinstance(call.func, cst.Name) else []
    if not functions:
        return []
    found: list[cst.ClassDef] = []
    for function in functions:
        if function.owner is not None or not function.returns:
            return []
        for returned in function.returns:
            values: list[cst.BaseExpression | None] = [returned]
            if isinstance(returned, cst.Name):
                values = [d.value for d in definitions.reaching(returned)]
            for value in values:
                built = definitions.class_called(value) if isinstance(value, cst.Call) else None
                if built is None:
                    return []
                found.append(built)
    return found


def _builds(value: cst.BaseExpression | None, wrappers: frozenset[str]) -> bool:
    """`value` is a call of no wrapping function, or an `if`-expression both of whose
    sides are (`Net().cuda() if use_gpu else Net()`: a distillation's student)."""
    if isinstance(value, cst.IfExp):
        return _builds(value.body, wrappers) and _builds(value.orelse, wrappers)
    return isinstance(value, cst.Call) and name_of(value.func, through=(cst.Call,)) not in wrappers


def _unfreezes(module: cst.Module) -> bool:
    """The module sets `requires_grad` to True on parameters (`p.requires_grad
    = True` or `p.requires_grad_()` with `p` a loop variable over `.parameters()`, or on an
    attribute chain: `model.backbone.requires_grad_(True)`, `m.weight.requires_grad = True`):
    a warm-up or staged fine-tuning, possibly after the wrap. Not an input tensor made to
    require grad (`x.requires_grad_(True)`, `real.clone().requires_grad_()`: a penalty)."""
    params = {
        target.value
        for node in nodes_of(module, cst.For)
        if any(
            isinstance(c, cst.Attribute) and c.attr.value in ("parameters", "named_parameters")
            for c in walk(node.iter)
        )
        for target in walk(node.target)
        if isinstance(target, cst.Name)
    }

    def parameter(expr: cst.BaseExpression) -> bool:
        return (
            isinstance(expr, cst.Attribute)
            and _chain(expr)
            or (isinstance(expr, cst.Name) and expr.value in params)
        )

    for node in nodes_of(module, (cst.Assign, cst.Expr)):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Name):
            if node.value.value == "True" and any(
                isinstance(t.target, cst.Attribute)
                and t.target.attr.value == "requires_grad"
                and parameter(t.target.value)
                for t in node.targets
            ):
                return True
        if (
            isinstance(node, cst.Expr)
            and isinstance(node.value, cst.Call)
            and isinstance(node.value.func, cst.Attribute)
            and node.value.func.attr.value == "requires_grad_"
            and parameter(node.value.func.value)
            and (not node.value.args or code_of(node.value.args[0].value) == "True")
        ):
            return True
    return False


def _feeds(line: cst.SimpleStatementLine, read: set[str]) -> bool:
    """`line` binds or grows a name an optimizer's call reads (`groups.append(...)`,
    `params = ...`, `params += ...`, `groups[0] = ...`)."""
    for stmt in line.body:
        targets: list[cst.BaseExpression] = []
        if isinstance(stmt, cst.Assign):
            targets = [t.target for t in stmt.targets]
        elif isinstance(stmt, (cst.AugAssign, cst.AnnAssign)):
            targets = [stmt.target]
        elif (
            isinstance(stmt, cst.Expr)
            and isinstance(stmt.value, cst.Call)
            and isinstance(stmt.value.func, cst.Attribute)
            and stmt.value.func.attr.value in _GROWING
        ):
            targets = [stmt.value.func.value]
        for target in targets:
            while isinstance(target, cst.Subscript):
                target = target.value
            if isinstance(target, cst.Name) and target.value in read:
                return True
    return False


def _unmoved(value: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """`value` without the module's own calls chained on it (`Net().cuda().to(d)` → `Net()`)."""
    return None if value is None else unmoved(value)
