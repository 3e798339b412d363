"""DP219: a branch of the training step decided on a figure of this rank's own batch.

A Python `if` on a loss or an output of the model (`if (loss_c + loss_s) < 10.0: k1 = k2 = 1
else: k1 = k2 = 0`, a loss-dependent weight, a curriculum switch, `if loss > limit: loss =
loss * 0.1`) was decided once under DataParallel, on the whole batch's figure. Migrated,
each rank decides on its own share: the ranks may take different branches, each
backpropagates another objective, and DDP averages their gradients, a step the original
never took, in silence (round 22 (gen), diyiiyiii/Arbitrary-Style-Transfer-via-Multi-
Adaptation-Network@e98469d train.py; its class fixture's weights -1.157388 under
DataParallel, -1.190831 on 2 ranks). Said where the branch changes what is trained: it
assigns a name (an attribute, an element) that the loop's backward reads through the loop's
assignments (`loss = main + k * extra`, at this step or the next), or runs a backward
itself. A branch that only prints or logs is left alone, and so is a branch whose test reads
the batch only through its structure (`isinstance(out, tuple)`, `x.size(0)`, `out.dim()`, `x
is None`, a key from `batch.keys()`): alike on every rank where it matters. An optimizer
step under such a test, the backward outside it, is DP075's (loop_exits.py); a loop left on
it, DP032's. The value deciding is the batch's, not a clock or the rank
(per_rank.decided_by_own_batches): dp2ddp does not make it rank 0's, it is this rank's data;
all-reduce it first (`dist.all_reduce`, averaged) or decide on something every rank computes
alike. Not followed: a branch in a step function the loop calls (its batch comes in through
the parameters), and a `continue` that skips the backward on some ranks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.flow import DefUse, view
from dp2ddp.transforms._support.ast_nodes import parse_python
from dp2ddp.transforms._support.nodes import code_of, statement_header, walk
from dp2ddp.transforms.analysis.per_rank import batch_fetchers, decided_by_own_batches
from dp2ddp.transforms.analysis.training import is_backward_call
from dp2ddp.transforms.rank_zero.loop_decisions import Loop, loop_trains
from dp2ddp.transforms.rank_zero.rule import Rule

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly

#: Calls whose value is the structure of what they are given, not its numbers.
_STRUCTURE_CALLS = frozenset({"isinstance", "len", "type", "hasattr", "callable", "getattr"})
#: Attributes and methods of a tensor that read its structure, not its numbers.
_STRUCTURE_ATTRIBUTES = frozenset(
    {"shape", "size", "dim", "ndim", "ndimension", "dtype", "device", "is_cuda", "numel"}
    | {"requires_grad", "is_floating_point", "nelement"}
    # a collated batch's keys are its samples' field names, alike on every rank
    | {"keys"}
)


class LocalBranches(Rule):
    def __init__(self, transform: RankZeroOnly) -> None:
        super().__init__(transform)
        self._fetchers: frozenset[str] | None = None
        #: ids of the `if` statements warned about (an `elif` of one is not said again).
        self._said: set[int] = set()
        #: id(loop) -> the keys its backward reads through the loop's assignments.
        self._reaching: dict[int, set[str]] = {}
        self._training: dict[int, bool] = {}

    def fetchers(self) -> frozenset[str]:
        """The program's functions returning `next()` of a batch and this module's own."""
        if self._fetchers is None:
            own = batch_fetchers(parse_python(self.facts.module.code))
            self._fetchers = own | self.t.state.hints.batch_fetchers
        return self._fetchers

    def visit_if(self, node: cst.If) -> None:
        """DP219 at `node` where its test reads a figure of this rank's batch and a branch
        changes what the loop trains (see the module's docstring)."""
        parent = self.t.parent(node)
        if isinstance(parent, cst.If) and parent.orelse is node and id(parent) in self._said:
            return  # an `elif` of an `if` said already
        loop = self._training_loop(node)
        if loop is None or self.facts.under_guard(node) or self.facts.in_except(node):
            return
        reaching = self._reaching_keys(loop)
        changes = [
            what
            for branch in (node.body, node.orelse)
            if branch is not None
            for what in self._changes(branch, reaching)
        ]
        if not changes:
            return
        uniform = self.facts.uniform
        flow = view(self.facts.module)
        reads = [r for r in _value_reads(node.test) if not _structure_name(flow, r)]
        if not any(decided_by_own_batches(uniform, r, loop, node, self.fetchers()) for r in reads):
            return
        self._said.add(id(node))
        what, backward = changes[0]
        if backward:
            why = (
                f"`{what}` may run on some ranks only, and they wait for the others in its "
                "gradient all-reduce"
            )
        else:
            why = (
                f"the ranks may take different branches (`{what}` reaches the loss) and DDP "
                "averages the gradients of different objectives"
            )
        self.t.warn(
            node,
            "DP219",
            f"`{statement_header(node)}` is decided on this rank's share of the batch: {why} "
            "(DataParallel decided once, on the whole batch)",
        )

    def _training_loop(self, node: cst.CSTNode) -> Loop | None:
        """The innermost loop around `node`, in its own function, that trains."""
        parent = self.t.parent(node)
        while parent is not None and not isinstance(
            parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Module)
        ):
            if isinstance(parent, (cst.For, cst.While)):
                if id(parent) not in self._training:
                    self._training[id(parent)] = loop_trains(
                        self.facts.uniform.index, parent, self.t.qualified_names
                    )
                if self._training[id(parent)]:
                    return parent
            parent = self.t.parent(parent)
        return None

    def _reaching_keys(self, loop: Loop) -> set[str]:
        """The names (and dotted attributes) the loop's backward passes read, through the
        assignments of the loop's body (`loss = main + k * extra` then `loss.backward()`:
        loss, main, k, extra and what those are computed from)."""
        if id(loop) in self._reaching:
            return self._reaching[id(loop)]
        found: set[str] = set()
        assigns: list[tuple[set[str], set[str]]] = []
        for node in walk(loop.body, skip_scopes=True):
            if isinstance(node, cst.Call) and is_backward_call(node, self.t.qualified_names):
                if isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward":
                    found |= _reads(node.func.value)
                found |= {k for a in node.args for k in _reads(a.value)}
            elif isinstance(node, cst.Assign):
                targets = {k for t in node.targets for k in _target_keys(t.target)}
                assigns.append((targets, _reads(node.value)))
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and node.value is not None:
                assigns.append((_target_keys(node.target), _reads(node.value)))
        grew = True
        while grew:
            grew = False
            for targets, reads in assigns:
                if targets & found and not reads <= found:
                    found |= reads
                    grew = True
        self._reaching[id(loop)] = found
        return found

    def _changes(self, branch: cst.CSTNode, reaching: set[str]) -> list[tuple[str, bool]]:
        """What `branch` does to the training step, as (text, is a backward): a backward
        it runs, an assignment the backward reads."""
        found: list[tuple[str, bool]] = []
        for node in walk(branch, skip_scopes=True):
            if isinstance(node, cst.Call) and is_backward_call(node, self.t.qualified_names):
                found.append((code_of(node), True))
            elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets = (
                    [t.target for t in node.targets]
                    if isinstance(node, cst.Assign)
                    else [node.target]
                )
                if any(_target_keys(t) & reaching for t in targets):
                    found.append((" ".join(code_of(node).split()), False))
        return found


def _dotted(node: cst.BaseExpression) -> str | None:
    """`self.k`, `cfg.loss.w` as text; None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr.value}"
    return None


def _target_keys(target: cst.BaseExpression) -> set[str]:
    """The keys a binding target writes: a name, a dotted attribute, the object an element
    is stored in (`w[0] = ...` writes `w`), each of a tuple's."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return {k for e in target.elements for k in _target_keys(e.value)}
    if isinstance(target, cst.StarredElement):
        return _target_keys(target.value)
    if isinstance(target, cst.Subscript):
        return _target_keys(target.value)
    dotted = _dotted(target)
    return set() if dotted is None else {dotted}


def _reads(expr: cst.CSTNode) -> set[str]:
    """The names and dotted attributes `expr` reads (an attribute's own name is not a
    read of that name, nor is a keyword argument's)."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            found.add(node.value)
        elif isinstance(node, cst.Attribute):
            dotted = _dotted(node)
            if dotted is not None:
                found.add(dotted)
            stack.append(node.value)
        elif isinstance(node, cst.Arg):
            stack.append(node.value)
        elif not isinstance(node, (cst.Lambda, cst.FunctionDef)):
            stack.extend(node.children)
    return found


def _structure_name(flow: DefUse, read: cst.BaseExpression, depth: int = 3) -> bool:
    """`read` is a name every binding reaching it binds to a structure read of a value
    (`n = target.shape[0]`, then `if n == BATCH_SIZE:`; `for key in batch.keys():`, then
    `if key != "text":`), through such names."""
    if not isinstance(read, cst.Name) or flow.parent(read) is None or not depth:
        return False
    found = flow.reaching(read)
    return bool(found) and all(
        d.kind in ("assign", "for")
        and (not d.element or d.kind == "for")
        and d.value is not None
        and all(_structure_name(flow, r, depth - 1) for r in _value_reads(d.value))
        for d in found
    )


def _value_reads(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The parts of `test` that read numbers: `test` less what reads only a value's
    structure (`isinstance(x, T)`, `len(x)`, `x.size(0)`, `x.shape`, `x is None`)."""
    found: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Name) and func.value in _STRUCTURE_CALLS:
                continue
            if isinstance(func, cst.Attribute) and func.attr.value in _STRUCTURE_ATTRIBUTES:
                continue
        if isinstance(node, cst.Attribute) and node.attr.value in _STRUCTURE_ATTRIBUTES:
            continue
        if isinstance(node, cst.Comparison) and all(
            isinstance(c.operator, (cst.Is, cst.IsNot))
            and isinstance(c.comparator, cst.Name)
            and c.comparator.value == "None"
            for c in node.comparisons
        ):
            continue
        if isinstance(node, (cst.Name, cst.Attribute)):
            found.append(node)
            continue
        stack.extend(node.children)
    return found
