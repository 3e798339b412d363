"""Where a barrier after a rank-0 file write may go: control flow around the write.

`leaves`: control can leave a statement other than at its end (a barrier after it would
wait for a rank that left). `writing_block`: the loop that fills a folder, after which one
barrier serves every write in it (barriers.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms._support.nodes import walk

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly


def leaves(statement: cst.CSTNode) -> bool:
    """Control can leave `statement` other than at its end: a return or raise in it, or a
    break/continue of a loop around it. A loop's own `break` lands right after the loop, so
    a barrier there is still reached."""
    loop = isinstance(statement, (cst.For, cst.While))
    stack: list[tuple[cst.CSTNode, bool]] = [(statement, False)]
    while stack:
        node, nested = stack.pop()
        if isinstance(node, (cst.Return, cst.Raise)):
            return True
        if isinstance(node, (cst.Break, cst.Continue)) and not nested and not loop:
            return True
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        inner = nested or (node is not statement and isinstance(node, (cst.For, cst.While)))
        stack += [(child, inner) for child in node.children]
    return False


def writing_block(
    t: RankZeroOnly, node: cst.CSTNode, file_reads: set[int], own_functions: set[str]
) -> cst.CSTNode | None:
    """The outermost loop around `node` in its function that reads no file and lists no
    directory, calls none of this module's functions, and is left only at its end or
    by its own `break`: the writing block (`for i in range(n): np.save(...)` filling a
    cache folder). One barrier after it, where every rank that entered it arrives,
    instead of one per file; None where no loop is around `node`."""
    found: cst.CSTNode | None = None
    parent = t.parent(node)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Module)):
        if isinstance(parent, (cst.For, cst.While)):
            calls = [c for c in walk(parent) if isinstance(c, cst.Call)]
            if (
                leaves(parent)
                or any(id(c) in file_reads for c in calls)
                or any(t.code(c.func).split(".")[-1] in own_functions for c in calls)
            ):
                break
            found = parent
        parent = t.parent(parent)
    return found


def is_barrier(piece: object) -> bool:
    """A `ddp_barrier()` statement line (inserted, or already there). Tested by type, not
    by a libcst matcher: asked of every statement of every block, a matcher's run cost more
    than the rank-zero pass's rules (stop 56)."""
    if not isinstance(piece, cst.SimpleStatementLine) or len(piece.body) != 1:
        return False
    line = piece.body[0]
    return (
        isinstance(line, cst.Expr)
        and isinstance(line.value, cst.Call)
        and isinstance(line.value.func, cst.Name)
        and line.value.func.value == "ddp_barrier"
    )


def barrier() -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(body=[cst.Expr(cst.Call(func=cst.Name("ddp_barrier")))])
