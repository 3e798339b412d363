"""Message statements (print, logging) of a guard that goes: they stay under its test.

model_wrap drops a GPU-count guard around a wrap (DDP always wraps), but the guard's
messages said there were several GPUs: printed always they say "Let's use 0 GPUs" on a CPU
machine. So each run of them keeps `if <the guard's test>:`. So does a statement that
scales a value by the GPU count (`args.batch_size *= torch.cuda.device_count()`, stop 59 s2:
bpowell122/tomodrgn@e19eae9 under `if args.multigpu and torch.cuda.device_count() > 1`):
run always, it made the batch 0 on a CPU machine; under its guard it scales the global
batch where the original did, and the loaders split that global batch.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

#: Calls that only say something.
MESSAGE_FUNCTIONS = frozenset(
    {"builtins.print"}
    | {
        f"logging.{name}"
        for name in ("debug", "info", "warning", "warn", "error", "critical", "log")
    }
)
_LOG_METHOD = re.compile(r"^(?:debug|info|warning|warn|log)$")
_LOGGER = re.compile(r"log", re.IGNORECASE)


def messages_kept_guarded(
    body: list[cst.BaseStatement],
    test: cst.BaseExpression,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    code: Callable[[cst.CSTNode], str],
) -> tuple[list[cst.BaseStatement], int]:
    """`body` as it goes unguarded, with each run of its message statements under
    `if <test>:` still, and how many there were."""
    out: list[cst.BaseStatement] = []
    run: list[cst.SimpleStatementLine] = []
    count = 0

    def flush() -> None:
        if run:
            inner = [run[0].with_changes(leading_lines=()), *run[1:]]
            guarded = cst.If(test=test, body=cst.IndentedBlock(body=inner))
            out.append(guarded.with_changes(leading_lines=run[0].leading_lines))
            run.clear()

    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine) and (
            is_message(statement, qualified_names, code)
            or scales_by_device_count(statement, qualified_names)
        ):
            run.append(statement)
            count += 1
        else:
            flush()
            out.append(statement)
    flush()
    return out, count


def scales_by_device_count(
    statement: cst.SimpleStatementLine, qualified_names: Callable[[cst.CSTNode], set[str]]
) -> bool:
    """`x *= torch.cuda.device_count()`, alone on its line."""
    small = statement.body[0] if len(statement.body) == 1 else None
    return (
        isinstance(small, cst.AugAssign)
        and isinstance(small.operator, cst.MultiplyAssign)
        and isinstance(small.value, cst.Call)
        and "torch.cuda.device_count" in qualified_names(small.value.func)
    )


def is_message(
    statement: cst.SimpleStatementLine,
    qualified_names: Callable[[cst.CSTNode], set[str]],
    code: Callable[[cst.CSTNode], str],
) -> bool:
    """`print(...)` or a logger's info/warning/debug call, alone on its line."""
    if len(statement.body) != 1:
        return False
    small = statement.body[0]
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return False
    func = small.value.func
    if qualified_names(func) & MESSAGE_FUNCTIONS:
        return True
    return (
        isinstance(func, cst.Attribute)
        and bool(_LOG_METHOD.match(func.attr.value))
        and bool(_LOGGER.search(code(func.value)))
    )
