"""Where a file kept open for writing on rank 0 is complete: its handle's `close()`.

`f = open(path, "w")`, lines written in a loop, `f.close()`: file_writes.py opens it off
rank 0 on a scratch file (`ddp_discard_path()`), so no guarded group holds the write and no
barrier followed it, though every rank reads `path` afterwards (the repro of stop 52's v4-A:
`np.loadtxt(path)` in the next function, rank 1 FileNotFoundError). The barrier goes after
the statement that closes the handle, in the block that opened it (barriers.py); with no
such close the file is not proved complete anywhere there, and DP054 says so."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.rank_zero.rule import Rule


def opened_handle(statement: cst.CSTNode, write: cst.Call) -> str | None:
    """The name `statement` binds to the file `write` opens (`f = open(path, "w")`)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or assign.value is not write:
        return None
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    return assign.targets[0].target.value


def closing_call(rule: Rule, statement: cst.CSTNode, handle: str) -> cst.Call | None:
    """The `handle.close()` of a later statement of the block `statement` opens it in (a
    close inside a later statement too: after the loop that writes, in an `if`); None
    where the block never closes it."""
    block = rule.t.parent(statement)
    body = getattr(block, "body", None)
    if not isinstance(body, (list, tuple)) or statement not in body:
        return None
    for later in body[body.index(statement) + 1 :]:
        for node in walk(later):
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "close"
                and isinstance(node.func.value, cst.Name)
                and node.func.value.value == handle
                and not node.args
            ):
                return node
    return None
