"""Values a rank computes on its own: a likely cause named in a warning, not a proof.

uniformity.py proves what is the same on every rank; this question goes the other way and
only points at a probable culprit for a message. A batch is this rank's own: a `for` target
over a loader, a value taken by `next()`, or what a call of a function or method returns
that returns `next()` of one (`loader.get_batch('train')` of a loader class of another
module: `batch_fetchers`, ProgramHints.batch_fetchers; ImageCaptioning.pytorch, v2-B of
stop 42). DP032 (a training loop left on a
condition that may differ between ranks) asks `computed_per_rank`: a loss, a model output,
a clock read in the loop. (A writer's log directory named by the clock, once DP033 here, is
the agreement proof's: rank_zero/run_dir.py makes it rank 0's.)
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from functools import partial
from typing import Final

import libcst as cst

from dp2ddp.flow import view
from dp2ddp.transforms._support import ast_nodes
from dp2ddp.transforms._support.ast_nodes import resolved_name
from dp2ddp.transforms._support.names import SHARD_BATCH
from dp2ddp.transforms._support.nodes import counts, enclosing_function, name_of, walk
from dp2ddp.transforms.analysis.alike_evaluations import iterates_loader
from dp2ddp.transforms.analysis.guards import mentions_rank
from dp2ddp.transforms.analysis.module_index import binds_name, mutation_root
from dp2ddp.transforms.analysis.per_process import FILE_SYSTEM_STATE, reads_per_process
from dp2ddp.transforms.analysis.training import QualifiedNames, loop_trains
from dp2ddp.transforms.analysis.uniformity import RankUniformity

#: Calls whose result differs between processes even on the same input.
_PER_PROCESS: Final = ("time.", "random.", "numpy.random.", "os.path.exists", "os.path.is")
#: The inserted helpers whose value is the same on every rank (a sum over the ranks, rank
#: 0's value): what they return is no rank's own figure.
_AGREED: Final = frozenset(
    {"ddp_all_reduce_sum", "ddp_all_reduce_mean", "ddp_any_rank", "ddp_global_count"}
    | {"ddp_rank0_value"}
)


def _agreed(expr: cst.BaseExpression | None) -> bool:
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value in _AGREED
    )


def computed_per_rank(
    u: RankUniformity,
    test: cst.BaseExpression,
    loop: cst.For | cst.While | cst.FunctionDef,
    fetchers: frozenset[str] = frozenset(),
) -> bool:
    """`test` reads a value that `loop` computes differently on each rank: from its
    batches (a loss, a model output), under a rank-local `if`, or a clock or random draw.
    An object the loop calls with such a value holds it (`stopper(val_loss)` then `if
    stopper.early_stop:`; Z2, stop 32: an early-stopping object fed a figure each rank
    computed over its own shuffled order). Values from before the loop and counters
    (`step += args.batch`) do not count: this is for a warning about leaving the loop, and
    a loss is the usual culprit. `loop` may be a function (DP075: a `train_step()` that
    backpropagates, then decides on its loss)."""
    # objects whose state the test reads (`stopper` of `stopper.early_stop`)
    held = {
        n.value.value
        for n in walk(test)
        if isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name)
    } - {"self"}
    direct = partial(_read_per_process, u, fetchers)
    return _loop_local(u, test, loop, set(), direct, frozenset(held))


def from_own_batches(
    u: RankUniformity, expr: cst.BaseExpression, loop: cst.For | cst.While, at: cst.CSTNode
) -> bool:
    """`expr` (read at `at`) reads a value `loop` computes from this rank's own batches (a
    loss, a model output), what `computed_per_rank` finds but a rank or clock test read
    directly: that is left to the agreement proof, which makes such reads rank 0's (DP090's
    question). Not where the uniformity proof shows it alike on every rank: a validation
    loss over a loader left whole, in order, of a DDP-wrapped model (alike_evaluations.py;
    stop 53 s3's `sched.step(vloss)` in an `.eval()` loop over the whole validation loader
    had DP090, "from this rank's own batches")."""
    return not u.value(expr, at) and _loop_local(u, expr, loop, set(), lambda _: False)


def handed_own_figure(
    u: RankUniformity,
    expr: cst.BaseExpression,
    site: cst.CSTNode,
    names: QualifiedNames,
) -> tuple[cst.Call, cst.BaseExpression] | None:
    """A call of `site`'s function, in a loop that trains (training.py), handing a
    parameter `expr` reads a figure that loop computes from this rank's own batches
    (`from_own_batches`): the call and that argument. A rate decided in a method of the
    program's own optimizer (`def update_lr(self, loss): if loss > self.last: ...`, round
    32's NewbobAdam of facebookresearch/BinauralSpeechSynthesis@81d0765) is decided by
    what its callers hand it; None where no caller hands such a figure."""
    function = enclosing_function(site, u.view)
    if function is None:
        return None
    params = function.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    read = {n.value for n in walk(expr) if isinstance(n, cst.Name)} & set(positional)
    for param in sorted(read):
        for call, given in u.index.handed(function, param):
            node = u.view.parent(call)
            while given is not None and node is not None:
                if isinstance(node, (cst.FunctionDef, cst.Module)):
                    break
                if (
                    isinstance(node, (cst.For, cst.While))
                    and loop_trains(node, names)
                    and from_own_batches(u, given, node, call)
                ):
                    return call, given
                node = u.view.parent(node)
    return None


def decided_by_own_batches(
    u: RankUniformity,
    expr: cst.BaseExpression,
    loop: cst.For | cst.While,
    at: cst.CSTNode,
    fetchers: frozenset[str] = frozenset(),
) -> bool:
    """`expr` (read at `at`) reads a value `loop` computes from this rank's own batches, as
    `from_own_batches`, a batch taken by `next()` (moved or cast as it is taken: `x =
    next(it).to(device)`), by a fetcher (batch_fetch) or cut by `ddp_shard_batch` counted
    too: no rank or clock test (those are the agreement proof's). DP219's question (a
    branch of the training step decided per rank: rank_zero/local_branches.py)."""

    def taken(node: cst.BaseExpression) -> bool:
        return any(
            isinstance(call, cst.Call)
            and (batch_fetch(call, fetchers) or name_of(call.func) == "ddp_shard_batch")
            for call in walk(node)
        )

    return not u.value(expr, at) and _loop_local(u, expr, loop, set(), taken, nested=False)


def _reached_agreed(u: RankUniformity, name: cst.Name) -> bool:
    """Every binding reaching this read of `name` is an agreed helper's value (`total =
    ddp_all_reduce_mean(total)` right before it, the data pass's): every rank's alike."""
    flow = view(u.module)
    found = flow.reaching(name) if flow.parent(name) is not None else []
    return bool(found) and all(d.kind == "assign" and _agreed(d.value) for d in found)


def _loop_local(
    u: RankUniformity,
    expr: cst.BaseExpression,
    loop: cst.For | cst.While | cst.FunctionDef,
    seen: set[str],
    direct: Callable[[cst.BaseExpression], bool],
    held: frozenset[str] = frozenset(),
    *,
    nested: bool = True,
) -> bool:
    """`expr` is `direct` or reads a name `loop` binds from such a value, from its batches
    or under an `if` whose test is (`seen`: the names asked already). `nested=False`: a
    loop nested in `loop` binds this rank's own values only where what it iterates is
    (`for part in output.split(2)`), not because it is not proved alike (`for name, param
    in model.named_parameters()`: DP219 asks so, a figure of the batch, no likely culprit)."""
    if _agreed(expr):
        return False  # reduced over the ranks (a batch's mark, ddp_any_rank): every rank's
    if direct(expr):
        return True
    if any(isinstance(n, cst.Call) and name_of(n.func) == SHARD_BATCH for n in walk(expr)):
        return True  # this rank's part of a batch the migration split (ddp_shard_batch)
    names = {
        n.value
        for n in walk(expr)
        if isinstance(n, cst.Name) and n.value not in seen and not _reached_agreed(u, n)
    }
    seen |= names
    for node in walk(loop, skip_scopes=True):
        call = node.value if isinstance(node, cst.Expr) else None
        if (
            isinstance(call, cst.Call)
            and _receiver(call.func) in held
            and not (isinstance(call.func, cst.Attribute) and call.func.attr.value in SHOWS)
            and any(_loop_local(u, a.value, loop, seen, direct, nested=nested) for a in call.args)
        ):
            return True  # `stopper(val_loss)` as a statement: the object keeps the figure
        if (
            isinstance(call, cst.Call)
            and mutation_root(node) in names
            and any(_loop_local(u, a.value, loop, seen, direct, nested=nested) for a in call.args)
        ):
            return True  # `stats.append(loss.item())`: the list holds this rank's figure
        if isinstance(node, cst.For):
            bound = [n for n in names if binds_name(node.target, n)]
            if bound and not nested and node is not loop:
                if _loop_local(u, node.iter, loop, seen, direct, nested=False):
                    return True
                continue
            if bound and counts(node.iter):
                # a counter (`range(s_epoch, n)`): this rank's own only where a bound is
                # (`range(len(x))` of a batch x); a bound not proved uniform (a parameter)
                # is no figure of this rank's batches (v3-E of stop 42: DP090's text)
                bounds = [
                    a.value for c in walk(node.iter) if isinstance(c, cst.Call) for a in c.args
                ]
                if any(_loop_local(u, b, loop, seen, direct, nested=nested) for b in bounds):
                    return True
                continue
            alike = u.value(node.iter, node) and not iterates_loader(u, node.iter)
            if any(not u.counts_passes(node, n) and not alike for n in bound):
                return True
            continue
        if not isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            continue
        targets = node.targets if isinstance(node, cst.Assign) else [node]
        if not any(binds_name(t.target, n) for t in targets for n in names) and (
            mutation_root(node) not in names  # `stats[k] = v`: stats holds v
        ):
            continue
        if _agreed(node.value):
            continue
        if node.value is None or _loop_local(u, node.value, loop, seen, direct, nested=nested):
            return True
        child: cst.CSTNode = node
        parent = u.view.parent(node)
        while parent is not None and parent is not loop:
            if (
                isinstance(parent, cst.If)
                and child is not parent.test
                and not u.is_shared(parent.test)
                and _loop_local(u, parent.test, loop, seen, direct, nested=nested)
            ):
                return True
            child, parent = parent, u.view.parent(parent)
    return False


#: Methods that show a value (a progress bar's text): the object keeps no figure the
#: program reads back as a number (round 31, otenim/GLCIC-PyTorch@3f9de13: `pbar.
#: set_description(f"loss {loss}")` made `if pbar.n >= steps: break` a rank's own, DP032).
SHOWS = frozenset({"set_description", "set_description_str", "set_postfix", "set_postfix_str"})


def _receiver(func: cst.BaseExpression) -> str | None:
    """The object a call is given to: `stopper` of `stopper(x)` and `stopper.step(x)`."""
    if isinstance(func, cst.Attribute):
        func = func.value
    return func.value if isinstance(func, cst.Name) else None


def _read_per_process(
    u: RankUniformity, fetchers: frozenset[str], expr: cst.BaseExpression
) -> bool:
    """`expr` tests the rank or reads the clock, a random draw, the file system, or takes
    a batch (batch_fetch)."""
    return (
        mentions_rank(expr)
        or batch_fetch(expr, fetchers)
        or any(
            isinstance(call, cst.Call)
            and any(n.startswith(_PER_PROCESS) for n in u.view.qualified_names(call.func))
            for call in walk(expr)
        )
    )


def per_rank_returns(tree: ast.Module, table: dict[str, str]) -> frozenset[str]:
    """Names of the module's top-level functions that return a value computed from a
    per-process read (analysis/per_process.py: the clock, a random draw, a uuid, the file
    system's state), through local names and the module's other such functions: a run
    name helper (`def run_name(): return time.strftime(...)`) another module names its
    run directory with."""
    functions = [s for s in tree.body if isinstance(s, ast.FunctionDef)]
    found: set[str] = set()

    def reads(node: ast.AST, tainted: set[str]) -> bool:
        for inner in ast_nodes.walk(node):
            if isinstance(inner, ast.Name) and inner.id in tainted:
                return True
            if isinstance(inner, ast.Call):
                name = resolved_name(inner.func, table)
                if reads_per_process(name) or name in FILE_SYSTEM_STATE:
                    return True
                if isinstance(inner.func, ast.Name) and inner.func.id in found:
                    return True
        return False

    changed = True
    while changed:
        changed = False
        for function in functions:
            if function.name in found:
                continue
            tainted: set[str] = set()
            assigns = [n for n in ast_nodes.walk(function) if isinstance(n, ast.Assign)]
            grew = True
            while grew:
                grew = False
                for assign in assigns:
                    targets = {t.id for t in assign.targets if isinstance(t, ast.Name)}
                    if targets - tainted and reads(assign.value, tainted):
                        tainted |= targets
                        grew = True
            if any(
                isinstance(n, ast.Return) and n.value is not None and reads(n.value, tainted)
                for n in ast_nodes.walk(function)
            ):
                found.add(function.name)
                changed = True
    return frozenset(found)


def batch_fetch(expr: cst.BaseExpression, fetchers: frozenset[str]) -> bool:
    """`expr` takes a batch: `next(it)`, or a call of a function or method named in
    `fetchers` (batch_fetchers: `loader.get_batch('train')`), by the name called."""
    if not isinstance(expr, cst.Call):
        return False
    name = name_of(expr.func)
    return name == "next" and len(expr.args) == 1 or bool(name) and name in fetchers


def batch_fetchers(tree: ast.Module) -> frozenset[str]:
    """Names of the module's top-level functions and its top-level classes' methods whose
    every return is `next()` of something, or a name bound from one (`data =
    next(self.iters[split])` in a `try` that re-makes the iterator at StopIteration, then
    `return data`): a loader class's `get_batch(split)`. A call of one in another module's
    training loop takes this rank's part of a batch where the loader is sharded."""
    found: set[str] = set()

    def fetches(function: ast.FunctionDef) -> bool:
        bound = {
            target.id
            for node in ast_nodes.walk(function)
            if isinstance(node, ast.Assign) and _next_call(node.value)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        returns = [
            n.value for n in ast_nodes.walk(function) if isinstance(n, ast.Return) and n.value
        ]
        return bool(returns) and all(
            _next_call(r) or isinstance(r, ast.Name) and r.id in bound for r in returns
        )

    for statement in tree.body:
        members = statement.body if isinstance(statement, ast.ClassDef) else [statement]
        fetching = {f.name for f in members if isinstance(f, ast.FunctionDef) and fetches(f)}
        found |= fetching
        if fetching and isinstance(statement, ast.ClassDef):
            found |= _iterating(statement, fetching)
    return frozenset(found)


def _iterating(cls: ast.ClassDef, fetching: set[str]) -> set[str]:
    """`Class.method@k` for each fetching method of `cls` every `next()` of which takes
    `self.a`, where every binding of `self.a` in the class is `iter()` of the constructor's
    k-th parameter (after self), directly or through `self.b` bound only to it
    (PuzzleCAM's core/datasets.py `Iterator(loader).get()`, re-made at StopIteration): the
    method gives that parameter's batches (stop 53 s3; another module's batch proof reads
    it where the argument is a loader sharded there)."""
    methods = [f for f in cls.body if isinstance(f, ast.FunctionDef)]
    init = next((f for f in methods if f.name == "__init__"), None)
    if init is None or not fetching:
        return set()
    params = [a.arg for a in init.args.args[1:]]
    bound: dict[str, list[ast.expr]] = {}
    for node in (n for f in methods for n in ast_nodes.walk(f)):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and _on_self(target.value):
                    bound.setdefault(target.attr, []).append(node.value)

    def parameter(value: ast.expr, depth: int = 2) -> int | None:
        if isinstance(value, ast.Name) and value.id in params:
            return params.index(value.id)
        if depth and isinstance(value, ast.Attribute) and _on_self(value.value):
            found = {parameter(v, depth - 1) for v in bound.get(value.attr, [])}
            return found.pop() if len(found) == 1 else None
        return None

    def iterated(value: ast.expr) -> int | None:
        if not (isinstance(value, ast.Attribute) and _on_self(value.value)):
            return None
        found: set[int | None] = set()
        for v in bound.get(value.attr, []) or [ast.Constant(None)]:
            made = (
                isinstance(v, ast.Call)
                and isinstance(v.func, ast.Name)
                and v.func.id == "iter"
                and len(v.args) == 1
            )
            found.add(parameter(v.args[0]) if made and isinstance(v, ast.Call) else None)
        return found.pop() if len(found) == 1 else None

    out: set[str] = set()
    for method in (f for f in methods if f.name in fetching):
        taken = {
            iterated(n.args[0])
            for n in ast_nodes.walk(method)
            if isinstance(n, ast.Call) and _next_call(n)
        }
        if len(taken) == 1 and (index := taken.pop()) is not None:
            out.add(f"{cls.name}.{method.name}@{index}")
    return out


def _on_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _next_call(node: ast.expr) -> bool:
    """`next(x)` (ast)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "next"
        and len(node.args) == 1
    )


def returned_figure(
    module: cst.Module, expr: cst.BaseExpression, figures: Mapping[str, int]
) -> bool:
    """`expr` is, or reads a name bound only to, a call of a function of `module` that
    returns a figure of this rank's batches (`figures`: MigrationState.per_rank_figures, the
    data pass's DP030 at such a return): an epoch's mean loss from `train()` handed to
    `ReduceLROnPlateau.step` decides each rank's rate from its share (round 21,
    princeton-vl/SimpleView's class: before, only DP030 at the return, and the ranks set
    different rates). DP090's question, as `from_own_batches` for a loop's own figure."""
    if not figures:
        return False
    flow = view(module)

    def returns_figure(node: cst.CSTNode | None) -> bool:
        return isinstance(node, cst.Call) and name_of(node.func) in figures

    for node in walk(expr):
        if returns_figure(node):
            return True
        if isinstance(node, cst.Name) and flow.parent(node) is not None:
            found = flow.reaching(node)
            if found and all(d.kind == "assign" and returns_figure(d.value) for d in found):
                return True
    return False
