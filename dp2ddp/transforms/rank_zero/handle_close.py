"""Where a file kept open for writing on rank 0 is complete: its handle's `close()`.

`f = open(path, "w")`, lines written in a loop, `f.close()`: file_writes.py opens it off
rank 0 on a scratch file (`ddp_discard_path()`), so no guarded group holds the write and no
barrier followed it, though every rank reads `path` afterwards (the repro of stop 52's v4-A:
`np.loadtxt(path)` in the next function, rank 1 FileNotFoundError). The barrier goes after
the statement that closes the handle, in the block that opened it (barriers.py); with no
such close the file is not proved complete anywhere there, and DP054 says so. Nor is a
file every rank creates exclusively (`open(path, "x")`): no barrier after it is reached by
every rank (exclusive_create)."""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.rank_zero.rule import Rule
from dp2ddp.transforms.rank_zero.side_effects import open_mode


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


def exclusive_create(t: MigrationTransform, write: cst.Call, reader: cst.Call) -> bool:
    """DP054 where the write of a file every rank reads is `open(path, "x")`: every rank
    runs it, the first to open creates the file and the others raise FileExistsError past
    any barrier after it (round 30, James-Teng/SRGAN@5fe7359: "create the registry once,
    else load it" in a try whose `except FileExistsError` loads it; a first run ended in
    gloo's "Connection closed by peer"). True where said: no barrier goes after it."""
    mode = open_mode(write) or ""
    if "x" not in mode:
        return False
    line = t.input_position(reader)[0]
    t.warn(
        write,
        "DP054",
        f"opened with mode {mode!r} on every rank and read by every rank at line {line}: "
        "the first rank to open it creates it and the others raise FileExistsError, so no "
        "barrier after it is reached by every rank; create it on rank 0 before the ranks "
        "read it",
    )
    return True
