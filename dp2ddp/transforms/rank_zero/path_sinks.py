"""Attributes that name a path a module makes or writes: the sinks one module gives another.

A run directory is often named in one module and made in another: `opts.run_name =
"{}_{}".format(opts.run_name, time.strftime(...))` and `opts.save_dir =
os.path.join(..., opts.run_name)` in options.py, `os.makedirs(opts.save_dir)` in run.py
(wouterkool/attention-learn-to-route@c9abf41). The module that reads the clock has no sink
of its own, and the one with the sink sees only an attribute of a parameter. Each module
tells the program which attribute names its sinks' paths read (`save_dir`); a module that
assigns such an attribute from a per-process read makes that read rank 0's value
(run_dir.py). By name: an attribute of that name assigned from a per-process read names a
run-specific path in any object, so sharing rank 0's reading costs nothing where it was not
needed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from dp2ddp.transforms.rank_zero.side_effects import (
    COPIES,
    MAKEDIRS,
    MKDIR,
    OPEN,
    SUMMARY_WRITER,
    TORCH_SAVE,
    WRITER_FUNCTIONS,
    WRITES_AT_FIRST,
)

#: Calls that make a directory or write a file at their first argument (side_effects.py's
#: tables, the one list of what writes where).
_AT_FIRST = (
    MAKEDIRS
    | MKDIR
    | WRITES_AT_FIRST
    | SUMMARY_WRITER
    | {name for name in WRITER_FUNCTIONS if name.endswith(".configure")}
)


def path_attributes(tree: ast.Module, resolved: Callable[[ast.expr], str]) -> frozenset[str]:
    """The attribute names (`save_dir` of `opts.save_dir`) in the path of each call of the
    module that makes a directory or writes a file (open for writing, torch.save,
    os.makedirs, `Path(...).mkdir()`, a SummaryWriter's log directory). `resolved` gives a
    call target's dotted name through the module's imports."""
    found: set[str] = set()
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        for path in _paths(call, resolved(call.func)):
            found.update(n.attr for n in ast.walk(path) if isinstance(n, ast.Attribute))
    return frozenset(found)


def _paths(call: ast.Call, name: str) -> list[ast.expr]:
    positional = [a for a in call.args if not isinstance(a, ast.Starred)]
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    if name in COPIES:  # both ends: the file copied and the copy
        ends = [*positional[:2], *(keywords[k] for k in ("src", "dst") if k in keywords)]
        return ends[:2]
    if name in _AT_FIRST:
        named = (keywords.get(k) for k in ("log_dir", "logdir", "name"))
        first = positional[0] if positional else next((v for v in named if v), None)
        return [first] if first is not None else []
    if name in TORCH_SAVE:
        second = positional[1] if len(positional) > 1 else keywords.get("f")
        return [second] if second is not None else []
    if (name in OPEN or name == "open") and positional:
        mode = positional[1] if len(positional) > 1 else keywords.get("mode")
        writes = isinstance(mode, ast.Constant) and isinstance(mode.value, str)
        if writes and any(c in mode.value for c in "wax+"):  # type: ignore[union-attr]
            return [positional[0]]
        return []
    if isinstance(call.func, ast.Attribute) and call.func.attr == "mkdir":
        return [call.func.value]
    return []
