"""DP032: a training loop left on a condition that may differ between ranks (a rank's own
loss, a clock read): that rank leaves while the others wait in the next gradient
all-reduce. The loop trains when a backward or an optimizer step runs in it or in a function
it calls (loop_decisions.py). A test whose per-process reads run_dir.py made rank 0's value
(a time budget) is every rank's: the uniformity proof says so, and no DP032 is given. DP075:
the optimizer step taken on such a condition (`if loss.item() < k * last: opt.step()`, a
"skip unstable batches" rule): DataParallel decided once, on the whole batch's figure; each
rank decides on its own shard's, some step and some do not, and from then on the ranks hold
different weights (DDP syncs gradients, never weights).

A batch's mark (v2-B of stop 42, ruotianluo/ImageCaptioning.pytorch@4c48a33): the loop counts
its epochs and leaves on a mark inside the batch's items (`if data['bounds']['wrapped']:
epoch += 1`, made by the collate function from the sampler's `(index, position, wrapped)`
items). Sharded, the marked item lands in one rank's part: only that rank counts the epoch
and leaves, the others wait in the next all-reduce (gloo: "Connection closed by peer").
DataParallel read the mark on the whole batch. `plan` finds each `if` that a training loop's
exit test reads through (the test itself, and each `if` around a binding of a name the test
reads: `epoch += 1`) whose test is a truth value of a batch (a `for` target over a loader,
`next()`, or a call of a function returning `next()` of one: per_rank.batch_fetch), read as
such (`x`, `x[k]`, `x.a`, `bool(...)`, `.any()`, `.item()`, `not`): that test becomes
`ddp_any_rank(test)`, true on every rank where it is true on any rank's part, which is the
whole batch's mark (templates/helpers/any_rank.py.j2). It is a collective: proved only
where every rank reaches the `if` each step (no statement around it in the loop, nor any
exit before it, depends on the rank, the marks themselves read over the ranks); elsewhere,
and for any other reading of a batch (a comparison, an `.all()`), DP032 at the exit.
Before, a value taken by `next()` or through a method of the program's own loader class
was not known as the rank's own: no DP032, the ranks parted silently."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.nodes import (
    calls_under,
    code_of,
    name_of,
    statement_header,
    walk,
)
from dp2ddp.transforms.analysis.module_index import binds_name
from dp2ddp.transforms.analysis.per_rank import batch_fetch, batch_fetchers, computed_per_rank
from dp2ddp.transforms.analysis.sharded_passes import batch_sizes_alike
from dp2ddp.transforms.analysis.uniformity import RankUniformity
from dp2ddp.transforms.rank_zero.loop_decisions import Loop, exit_tests, loop_trains
from dp2ddp.transforms.rank_zero.rule import Rule

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly

#: Readings of a value that keep its truth: the mark itself (`bool(x)`, `x.any()`).
_TRUTH_CALLS = frozenset({"bool"})
_TRUTH_METHODS = frozenset({"any", "item"})


def _optimizer_step(call: cst.Call) -> bool:
    """`opt.step()`, `self.optimizer.step()`, `optimizers[i].step()` (a receiver named as an
    optimizer; a scaler's `step(opt)` takes the optimizer as an argument and is not one)."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "step") or call.args:
        return False
    return "opt" in name_of(func.value, through=(cst.Subscript,)).lower()


class LoopExits(Rule):
    def __init__(self, transform: RankZeroOnly) -> None:
        super().__init__(transform)
        #: ids of the `if` statements whose test is a batch's mark read over the ranks.
        self.marks: set[int] = set()
        self._fetchers: frozenset[str] | None = None

    def fetchers(self) -> frozenset[str]:
        """The program's functions returning `next()` of a batch (ProgramHints) and this
        module's own (per_rank.batch_fetchers), asked once."""
        if self._fetchers is None:
            own = batch_fetchers(parse_python(self.facts.module.code))
            self._fetchers = own | self.t.state.hints.batch_fetchers
        return self._fetchers

    def plan(self, module: cst.Module) -> None:
        """The `if`s a training loop's exit reads through whose test is a batch's mark:
        read over the ranks where every rank reaches them each step (see the module's
        docstring); shared with the uniformity proof, so the exit is every rank's."""
        uniform = self.facts.uniform
        loops: dict[int, tuple[Loop, list[cst.CSTNode]]] = {}
        for _, site, loop in exit_tests(self.t, uniform.index, module, self.t.qualified_names):
            if not self.facts.under_guard(site):
                loops.setdefault(id(loop), (loop, []))[1].append(site)
        for loop, sites in loops.values():
            marked = [g for g in self._guards(loop, sites) if self._mark(g.test, loop)]
            for guard in marked:
                uniform.share(guard.test)
            for guard in marked:
                if self._reached(guard, loop):
                    self.marks.add(id(guard))
                else:
                    uniform.share(guard.test, undo=True)

    def leave_if(self, original: cst.If, updated: cst.If) -> cst.If:
        """`if mark:` -> `if ddp_any_rank(mark):` for a mark `plan` proved."""
        if id(original) not in self.marks:
            return updated
        self.t.state.helpers.add("any_rank")
        self.t.record(
            original,
            "the batch's mark read over the ranks, as DataParallel read it on the whole "
            "batch: every rank counts the epoch and leaves the loop at the same step",
        )
        return updated.with_changes(
            test=cst.Call(cst.Name("ddp_any_rank"), [cst.Arg(updated.test)])
        )

    def _guards(self, loop: Loop, sites: list[cst.CSTNode]) -> list[cst.If]:
        """The `if`s of `loop` its exit reads through: those around a `break` (`sites`),
        and those around a binding, in the loop, of a name an exit test reads."""
        tests = [loop.test] if isinstance(loop, cst.While) else []
        tests += [s.test for s in sites if isinstance(s, cst.If)]
        names = {n.value for t in tests for n in walk(t) if isinstance(n, cst.Name)}
        found = [s for s in sites if isinstance(s, cst.If)]
        for node in walk(loop.body, skip_scopes=True):
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
                targets = [node.target]
            else:
                continue
            if not any(binds_name(t, n) for t in targets for n in names):
                continue
            parent = self.t.parent(node)
            while parent is not None and parent is not loop:
                if isinstance(parent, cst.If) and all(parent is not f for f in found):
                    found.append(parent)
                parent = self.t.parent(parent)
        return found

    def _mark(self, test: cst.BaseExpression, loop: Loop) -> bool:
        """`test` is a truth value of a batch the loop takes (`data['bounds']['wrapped']`,
        `bool(wrapped.any())`): every binding of its name in the loop takes a batch."""
        expr = test
        while True:
            if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
                expr = expr.expression
            elif (
                isinstance(expr, cst.Call)
                and len(expr.args) == 1
                and name_of(expr.func) in (_TRUTH_CALLS)
                and isinstance(expr.func, cst.Name)
            ):
                expr = expr.args[0].value
            elif (
                isinstance(expr, cst.Call)
                and not expr.args
                and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in _TRUTH_METHODS
            ):
                expr = expr.func.value
            else:
                break
        while isinstance(expr, (cst.Subscript, cst.Attribute)):
            expr = expr.value
        if not isinstance(expr, cst.Name):
            return False
        name = expr.value
        bindings = [
            node
            for node in walk(loop.body, skip_scopes=True)
            if isinstance(node, cst.Assign)
            and any(binds_name(t.target, name) for t in node.targets)
        ]
        if isinstance(loop, cst.For) and binds_name(loop.target, name):
            return not bindings and not self.facts.uniform.value(loop.iter, loop)
        return (
            bool(bindings)
            and all(
                batch_fetch(b.value, self.fetchers()) or name_of(b.value.func) == "ddp_shard_batch"
                for b in bindings
                if isinstance(b.value, cst.Call)
            )
            and all(isinstance(b.value, cst.Call) for b in bindings)
        )

    def _reached(self, guard: cst.If, loop: Loop) -> bool:
        """Every rank reaches `guard` in each step of `loop` that backpropagates: no
        statement around it in the loop depends on the rank (the loop itself left on the
        marks read over the ranks), and no statement between the step's backward and it
        may leave the step on one rank. An exit before the backward skips DDP's own
        all-reduce too: whether the ranks agree there is DP032's question, not this
        collective's (ImageCaptioning.pytorch's `if epoch >= opt.max_epochs: break`, its
        start epoch read from a checkpoint's infos)."""
        uniform = self.facts.uniform
        within = {id(n) for n in walk(loop.body)}
        if any(id(s) in within for s in uniform.rank_dependent_statements(guard)):
            return False
        body = list(loop.body.body) if isinstance(loop.body, cst.IndentedBlock) else []
        top = next((s for s in body if any(n is guard for n in walk(s))), None)
        if top is None:
            return False
        steps = [
            i
            for i, s in enumerate(body)
            if any(
                isinstance(n, cst.Attribute) and n.attr.value == "backward"
                for n in walk(s, skip_scopes=True)
            )
        ]
        start = steps[0] if steps else 0
        return not any(uniform.returns_per_rank(s) for s in body[start : body.index(top)])

    def visit_call(self, node: cst.Call) -> None:
        """DP075: an optimizer step taken on a condition that may differ between ranks."""
        if not _optimizer_step(node):
            return
        ifs: list[cst.If] = []
        child: cst.CSTNode = node
        parent = self.t.parent(node)
        while parent is not None and not isinstance(
            parent, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)
        ):
            if isinstance(parent, cst.If) and child is not parent.test:
                ifs.append(parent)
            child, parent = parent, self.t.parent(parent)
        if not isinstance(parent, (cst.For, cst.While, cst.FunctionDef)):
            return
        if not ifs or self.facts.under_guard(node):
            return
        # the scope whose values the test reads: the enclosing loop, or the function (a
        # `train_step()` method that backpropagates, then decides whether to step)
        uniform = self.facts.uniform
        local = [
            i
            for i in ifs
            if computed_per_rank(uniform, i.test, parent)
            # in a function (a `train_step(self, x, y)` its caller feeds), the test must be
            # proved the same on every rank: the batch comes in through the parameters
            or (isinstance(parent, cst.FunctionDef) and not uniform.value(i.test, i))
        ]
        if not local:
            return
        dependent = local[-1]
        # the backward runs outside that condition: every rank took part in the gradient
        # all-reduce, only the step is rank-local (a backward under the condition too is
        # another hazard: the ranks would wait on each other, not part silently)
        inside = {id(c) for c in calls_under(dependent)}
        if not any(
            isinstance(c.func, cst.Attribute)
            and c.func.attr.value == "backward"
            and id(c) not in inside
            for c in calls_under(parent)
        ):
            return
        self.t.warn(
            dependent,
            "DP075",
            f"`{statement_header(dependent)}` may differ between ranks: "
            f"`{code_of(node)}` would run on some ranks only, and their weights part for good "
            "(DataParallel decided once, on the whole batch)",
        )

    def visit_break(self, node: cst.Break) -> None:
        """DP032: a training loop left on a condition that may differ between ranks."""
        ifs: list[cst.If] = []
        parent = self.t.parent(node)
        while parent is not None and not isinstance(parent, (cst.For, cst.While)):
            if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return
            if isinstance(parent, cst.If):
                ifs.append(parent)
            parent = self.t.parent(parent)
        if parent is None or self.facts.under_guard(node):
            return
        uniform = self.facts.uniform
        local = [
            i
            for i in ifs
            if computed_per_rank(uniform, i.test, parent, self.fetchers())
            and not _shared_reads(uniform, i.test)
            and not uniform.value(i.test, i.test)  # proved alike (alike_evaluations.py: stop 53)
            and not (isinstance(parent, cst.For) and batch_sizes_alike(uniform, parent, i.test))
        ]
        if not local:
            return
        dependent = local[-1]
        if loop_trains(uniform.index, parent, self.t.qualified_names):
            self.t.warn(
                dependent,
                "DP032",
                f"`{statement_header(dependent)}` may differ between ranks: one rank would leave "
                "the training loop while the others wait in the next gradient all-reduce",
            )


def _shared_reads(uniform: RankUniformity, test: cst.BaseExpression) -> bool:
    """`test` is proved the same on every rank (uniformity.py), and reads something made
    rank 0's value (a clock read shared by run_dir.py): without such a read, the
    warning's own judgement (computed_per_rank) stands."""
    return uniform.value(test, test) and any(
        isinstance(call, cst.Call) and uniform.value(call, call) for call in walk(test)
    )
