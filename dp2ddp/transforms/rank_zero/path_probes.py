"""Probes of the file system: calls asking whether a file is there or what a folder holds.

path_sinks.py counts a probe at a function's parameter as a read of what another rank may
write there (after a rank-0 write, another rank's answer may be "missing" or "partial"),
except where the probe only decides whether to create that folder (creation_guards).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

#: Calls that ask whether a file is there, or what a folder holds, at their first argument:
#: after a rank-0 write another rank's answer may be "missing" or "partial".
PROBES = frozenset(
    {"os.path.exists", "os.path.isfile", "os.path.isdir", "os.path.getsize", "os.listdir"}
    | {"os.scandir", "glob.glob", "glob.iglob"}
)


#: Calls creating the folder at their first argument.
_MAKES_FOLDER = frozenset({"os.makedirs", "os.mkdir"})


def creation_guards(walked: list[ast.AST], resolved: Callable[[ast.expr], str]) -> set[int]:
    """The probes that only decide whether to create the folder they ask about (`if not
    os.path.exists(folder): os.makedirs(folder)`, no else): no read of what another rank
    writes there, as every rank creates the folder (migrate makes each `makedirs` take
    `exist_ok=True`). Taken for a read, every call of a program's `save_json(folder, ...)`
    after another was "read by every rank" (a false DP054 at each; round 25,
    taishan1994/pytorch_bert_bilstm_crf_ner@16ee44d utils/commonUtils.py)."""
    found: set[int] = set()
    for node in walked:
        if not isinstance(node, ast.If) or node.orelse:
            continue
        test = node.test
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        if not (isinstance(test, ast.Call) and test.args and resolved(test.func) in PROBES):
            continue
        asked = ast.dump(test.args[0])
        if all(
            isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Call)
            and resolved(s.value.func) in _MAKES_FOLDER
            and s.value.args
            and ast.dump(s.value.args[0]) == asked
            for s in node.body
        ):
            found.add(id(test))
    return found
