"""Running sums of per-batch means over a sharded loader, averaged over the ranks where read.

Stop 48 (datawhalechina/torch-rechub@5a73b2e's trainers: `total_loss += loss.item()` in the
loop, `tk0.set_postfix(loss=total_loss / log_interval)` every `log_interval` steps, then
`total_loss = 0`; the epoch's `epoch_loss / batch_count` after it). DataParallel's sum adds
each batch's mean. Sharded by a DistributedSampler, every rank runs as many steps, each
adding the mean of its share; the mean over the ranks of their sums adds, step by step, the
mean of the shares' means, which is the batch's mean where the shares are equal (as
mean_lists.py argues). The average is linear: a sum averaged over the ranks and then added
to again is, averaged once more, the average of what every rank added since plus the
common value. So `S = ddp_all_reduce_mean(S)` (templates/helpers/all_reduce_mean.py.j2)
before each place S is read gives DataParallel's figure there, whatever is read and however
often. Proved, else DP030 as before:

- the loop is an even pass over the loader (mean_lists.even_pass) and no other sum of it
  was summed over the ranks after it (data/sample_counts' proofs);
- S is bound to a number before the loop (the same on every rank), and in the loop's body
  only by `S += v` of a per-batch mean (mean_lists.per_batch_mean) or reset to a number;
- every statement of the loop's body reading S (other than its own additions) lies in
  blocks that every rank reaches alike on each step: no statement between it and the loop
  whose condition may differ between ranks (analysis/uniformity.py: `if (i + 1) % 10 ==
  0:` over the loop's own step counter is alike), so the collective placed before it is
  reached by every rank as often; after the loop, its function reads S (one average right
  after the loop); no function or class defined in its function names S.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import PositionProvider

from dp2ddp.transforms._support.nodes import call_named, walk
from dp2ddp.transforms.analysis.uniformity import RankUniformity
from dp2ddp.transforms.data.mean_lists import even_pass, mentions, per_batch_mean

if TYPE_CHECKING:
    from dp2ddp.transforms.data.evaluation import LoaderEvaluation
    from dp2ddp.transforms.data.plan import Loader


def averaged_mean_sums(
    t: LoaderEvaluation, loader: Loader, loop: cst.For | cst.While, counters: set[str]
) -> set[str]:
    """Those of the loop's `counters` that are sums of per-batch means averaged over the
    ranks wherever they are read (planned here; the module docstring)."""
    if not counters or t._reduced_after(loop) or even_pass(t, loader, loop) is None:
        return set()
    assert isinstance(loop, cst.For)
    found: set[str] = set()
    uniform: list[RankUniformity] = []
    for name in sorted(counters):
        reads = _averaged_reads(t, loop, name, uniform)
        if reads is None:
            continue
        places, after = reads
        found.add(name)
        t.state.helpers.add("all_reduce_mean")
        for statement in places:  # once: a loop over zip(a, b) is planned for both loaders
            if not any(_averages(s, name) for s in t._before.get(statement, [])):
                t._before.setdefault(statement, []).append(_average(name))
        if after and not any(_averages(s, name) for s in t._after.get(loop, [])):
            t._after.setdefault(loop, []).append(_average(name))
        t.record(
            loop,
            f"{name}, a running sum of this rank's per-batch means, averaged over the ranks "
            "(ddp_all_reduce_mean) where it is read: the sum of the batches' means",
        )
    return found


def mean_sum_averaged(t: LoaderEvaluation, loader: Loader, loop: cst.For, name: str) -> bool:
    """`name` is a sum of per-batch means that averaged_mean_sums averages where it is read
    (asked before the plan: DP058's sum of means divided by the dataset's size is then the
    original's, not said)."""
    if t._reduced_after(loop) or even_pass(t, loader, loop) is None:
        return False
    return _averaged_reads(t, loop, name, []) is not None


def _averaged_reads(
    t: LoaderEvaluation, loop: cst.For, name: str, uniform: list[RankUniformity]
) -> tuple[list[cst.BaseStatement], bool] | None:
    """(the loop's statements reading `name`, each to be preceded by its average; whether
    it is read after the loop) where `name` is proved (the module docstring); else None.
    `uniform` caches the module's RankUniformity."""
    scope = t._scope_root(loop)
    if not _numbers_before(t, loop, name) or not _only_mean_sums(t, loop, name):
        return None
    if len(mentions(scope, name)) != sum(
        isinstance(n, cst.Name) and n.value == name for n in walk(scope, skip_scopes=True)
    ):
        return None  # a function or class inside names it too: not followed
    places = _read_places(t, loop, name)
    if places is None:
        return None
    if places and not uniform:
        uniform.append(RankUniformity.for_pass(t, t._module_node))
    if any(_rank_dependent(uniform[0], loop, s) for s in places):
        return None
    after = _read_after(t, loop, scope, name)
    return (places, after) if places or after else None


def _average(name: str) -> cst.SimpleStatementLine:
    value = call_named("ddp_all_reduce_mean", cst.Arg(cst.Name(name)))
    return cst.SimpleStatementLine(
        body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=value)]
    )


def _averages(statement: cst.CSTNode, name: str) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and isinstance(assign := statement.body[0], cst.Assign)
        and isinstance(assign.value, cst.Call)
        and isinstance(assign.value.func, cst.Name)
        and assign.value.func.value == "ddp_all_reduce_mean"
        and _is(assign.targets[0].target, name)
    )


def _numbers_before(t: LoaderEvaluation, loop: cst.For, name: str) -> bool:
    value = t._bound_before(loop, name)
    return isinstance(value, (cst.Integer, cst.Float))


def _only_mean_sums(t: LoaderEvaluation, loop: cst.For, name: str) -> bool:
    """In the loop's body `name` is bound only by `name += <per-batch mean>` or to a number,
    at least once by an addition."""
    added = False
    for node in walk(loop.body, skip_scopes=True):
        if isinstance(node, cst.AugAssign) and _is(node.target, name):
            if not isinstance(node.operator, cst.AddAssign):
                return False
            if not per_batch_mean(t, loop, node.value):
                return False
            added = True
        elif isinstance(node, cst.Assign) and any(
            n.value == name for target in node.targets for n in _names(target.target)
        ):
            if not (
                len(node.targets) == 1
                and _is(node.targets[0].target, name)
                and isinstance(node.value, (cst.Integer, cst.Float))
            ):
                return False
        elif isinstance(node, (cst.AnnAssign, cst.For, cst.WithItem, cst.NamedExpr)):
            target = node.target if not isinstance(node, cst.WithItem) else node.asname
            if target is not None and any(n.value == name for n in _names(target)):
                return False
    return added


def _is(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _names(node: cst.CSTNode) -> list[cst.Name]:
    return [n for n in walk(node) if isinstance(n, cst.Name)]


def _read_places(t: LoaderEvaluation, loop: cst.For, name: str) -> list[cst.BaseStatement] | None:
    """The statements of the loop's body that read `name` outside its own bindings, the
    first of each run in its block (a read right after another, with no binding of `name`
    between, sees the average already); None where a read is not a plain statement of a
    block (a compound statement's test)."""
    places: list[cst.BaseStatement] = []
    averaged: set[int] = set()
    for node in walk(loop.body, skip_scopes=True):
        if not _is(node, name):
            continue
        parent = t.parent(node)
        if isinstance(parent, cst.AugAssign) and parent.target is node:
            continue
        if isinstance(parent, cst.AssignTarget):
            continue
        statement: cst.CSTNode | None = node
        while statement is not None and not isinstance(statement, cst.SimpleStatementLine):
            if isinstance(statement, cst.BaseCompoundStatement):
                return None  # read in an `if`'s test or a loop's header
            statement = t.parent(statement)
        if not isinstance(statement, cst.SimpleStatementLine):
            return None
        if id(statement) in averaged:
            continue
        block = t.parent(statement)
        if not isinstance(block, cst.IndentedBlock):
            return None
        body = list(block.body)
        at = next(i for i, s in enumerate(body) if s is statement)
        previous = body[at - 1] if at else None
        averaged.add(id(statement))
        if previous is not None and id(previous) in averaged and not _binds(previous, name):
            continue  # the run's first read placed the average
        places.append(statement)
    return places


def _binds(statement: cst.CSTNode, name: str) -> bool:
    return any(
        isinstance(n, cst.AugAssign)
        and _is(n.target, name)
        or isinstance(n, cst.AssignTarget)
        and _is(n.target, name)
        for n in walk(statement)
    )


def _rank_dependent(uniform: RankUniformity, loop: cst.For, statement: cst.CSTNode) -> bool:
    """A statement between `statement` and the loop whose condition may differ by rank
    (the loop itself is an even pass: every rank takes as many steps)."""
    found = uniform.rank_dependent_statements(statement)
    return bool(found) and found[0] is not loop


def _read_after(t: LoaderEvaluation, loop: cst.For, scope: cst.CSTNode, name: str) -> bool:
    end = t.get_metadata(PositionProvider, loop).end.line
    return any(
        _is(n, name)
        and t.get_metadata(PositionProvider, n).start.line > end
        and not isinstance(t.parent(n), cst.AssignTarget)
        for n in walk(scope, skip_scopes=True)
    )
