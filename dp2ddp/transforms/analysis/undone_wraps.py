"""DP062's finding: a wrap the program undoes before it trains (stop 58, v2-A).

vansky/neural-complexity@3c057f8 wraps its language model, `model = nn.DataParallel(model,
dim=1)`, and the next statement takes it back out, `if isinstance(model, nn.DataParallel):
model = model.module`: the optimizer, the training loop and the saves all use the bare
module, so under DataParallel the wrap changed nothing (one process, the whole batch on one
device). Migrated, the batches are each rank's share while the module the loop trains is
still the unwrapped one: DDP's gradient averaging never runs, every rank trains its own copy
on its own columns, the copies drift apart from the first step, and rank 0's is saved.
Nothing fails.

The finding is narrow: a statement `X = <DataParallel call>` (through `.cuda()`/`.to()`),
X a name or an attribute as spelled, and later in its block, or in a block around it up to
the function (through `if`/`else`, `with`, `try`), a statement that rebinds X to `X.module`,
alone or as the one statement under `if isinstance(X, ...)`, with nothing rebinding X
between. A program that unwraps only for a save or an evaluation (`net = model.module`,
another name) keeps training the wrapper and is not this shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import libcst as cst

from dp2ddp.transforms._support.nodes import code_of, nodes_of, unmoved, walk

#: Compound statements whose blocks the search climbs out of to look further on.
_CLIMBED = (cst.If, cst.Else, cst.With, cst.Try, cst.ExceptHandler, cst.Finally)


@dataclass(frozen=True)
class UndoneWrap:
    """A wrap (`wrap`) assigned to `held`, and the statement that unwraps it (`unwrap`)."""

    wrap: cst.Call
    held: str
    unwrap: cst.BaseStatement

    def detail(self, line_of: Callable[[cst.CSTNode], int]) -> str:
        """DP062's text: the unwrap, the wrap it undoes, and what follows from it."""
        return (
            f"{self.held} = {self.held}.module takes the wrap of line {line_of(self.wrap)} back "
            "out: the program goes on with the bare module, which DDP does not synchronise; "
            "under DataParallel the wrap changed nothing (one process, the whole batch), "
            "migrated each rank trains its own copy on its share of the batches and the "
            "copies drift apart"
        )


def undone_wraps(
    module: cst.Module,
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
    is_wrap: Callable[[cst.Call], bool],
) -> Iterator[UndoneWrap]:
    """Each wrap of `module` the program undoes later in its scope, with the unwrap; not for
    a name wrapped again elsewhere, whole or a part (unwrapped to be re-wrapped)."""
    wraps: dict[str, int] = {}
    for assign in nodes_of(module, cst.Assign):
        value = unmoved(assign.value)
        if len(assign.targets) == 1 and isinstance(value, cst.Call) and is_wrap(value):
            held = code_of(assign.targets[0].target)
            wraps[held] = wraps.get(held, 0) + 1
    for assign in nodes_of(module, cst.Assign):
        if len(assign.targets) != 1:
            continue
        target = assign.targets[0].target
        value = unmoved(assign.value)
        if not isinstance(target, (cst.Name, cst.Attribute)) or not isinstance(value, cst.Call):
            continue
        if not is_wrap(value):
            continue
        held = code_of(target)
        statement = parent(assign)
        if sum(n for t, n in wraps.items() if t == held or t.startswith(f"{held}.")) > 1:
            continue  # wrapped again, whole or a part (`net.features = DP(net.features)`)
        if isinstance(statement, cst.SimpleStatementLine):
            unwrap = _unwrap_after(statement, held, parent)
            if unwrap is not None:
                yield UndoneWrap(value, held, unwrap)


def _unwrap_after(
    statement: cst.BaseStatement,
    held: str,
    parent: Callable[[cst.CSTNode], cst.CSTNode | None],
) -> cst.BaseStatement | None:
    """The first later statement that unwraps `held`, climbing out of the blocks around
    `statement` within its scope; None where `held` is rebound otherwise first."""
    node: cst.CSTNode = statement
    while True:
        block = parent(node)
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return None
        body = list(block.body)
        for later in body[body.index(node) + 1 :]:  # type: ignore[arg-type]
            if _unwraps(later, held):
                return later
            if _binds(later, held) or _uses(later, held):
                return None  # used as the wrapper first (trained, then unwrapped to save)
        if isinstance(block, cst.Module):
            return None
        owner = parent(block)
        while isinstance(owner, (cst.Else, cst.ExceptHandler, cst.Finally)) or (
            isinstance(owner, cst.If)
            and not isinstance(parent(owner), (cst.IndentedBlock, cst.Module))
        ):
            owner = parent(owner)  # an `else`/`elif` arm: on to its `if`/`try` statement
        if not isinstance(owner, _CLIMBED):
            return None  # a function, class or loop body: the scope ends here
        node = owner


def _unwraps(statement: cst.BaseStatement, held: str) -> bool:
    """`held = held.module`, or `if isinstance(held, ...): held = held.module` alone."""
    if isinstance(statement, cst.If) and statement.orelse is None:
        test = statement.test
        if not (
            isinstance(test, cst.Call)
            and code_of(test.func) == "isinstance"
            and test.args
            and code_of(test.args[0].value) == held
        ):
            return False
        inner = statement.body.body
        first = inner[0] if len(inner) == 1 else None
        return isinstance(first, cst.BaseStatement) and _unwraps(first, held)
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    assign = statement.body[0]
    return (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and code_of(assign.targets[0].target) == held
        and code_of(unmoved(assign.value)) == f"{held}.module"
    )


def _binds(statement: cst.CSTNode, held: str) -> bool:
    """Anything in `statement` that binds `held` (an assignment, a loop or `with` target)."""
    for node in walk(statement):
        targets: list[cst.CSTNode] = []
        if isinstance(node, cst.AssignTarget):
            targets.append(node.target)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            targets.append(node.target)
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets.append(node.target)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            targets.append(node.asname.name)
        elif isinstance(node, cst.NamedExpr):
            targets.append(node.target)
        for target in targets:
            if any(
                code_of(n) == held for n in walk(target) if isinstance(n, (cst.Name, cst.Attribute))
            ):
                return True
    return False


def _uses(statement: cst.CSTNode, held: str) -> bool:
    """`held` read anywhere in `statement`."""
    return any(
        isinstance(n, (cst.Name, cst.Attribute)) and code_of(n) == held for n in walk(statement)
    )
