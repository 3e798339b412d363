"""`migrate --output-format json|github`: a run's outcomes for machines (docs/ci.md).

json: one document (JSON_VERSION; its keys are a contract, documented in docs/ci.md).
github: GitHub Actions workflow commands, one `::warning` per warning (DP034's folded into
one, as in the text output) and one `::error` per file that failed (and, under --check, per
existing file that would be migrated), so that they are shown on the pull request's diff.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from dp2ddp import __version__
from dp2ddp.migrate.summary import Report, fold_unreached, is_new_file
from dp2ddp.result import FileOutcome

FORMATS = ("text", "json", "github")
#: Bumped when a key of the json document changes meaning or goes away (new keys may appear).
JSON_VERSION = 1
_ERROR = re.compile(r"^(?P<path>.*?):(?P<line>\d+):(?P<col>\d+): error: (?P<message>.*)$", re.S)


# -- json -----------------------------------------------------------------------------------
def json_document(
    outcomes: Sequence[FileOutcome],
    report: Report,
    *,
    written: Mapping[str, str],
    launch: Sequence[str],
    settings: str | None,
) -> str:
    files = [_file(outcome, report.check, written.get(outcome.path)) for outcome in outcomes]
    document = {
        "version": JSON_VERSION,
        "dp2ddp": __version__,
        "settings": settings,
        "check": report.check,
        "files": files,
        "summary": {
            "files": report.total,
            "migrated": report.migrated,
            "created": report.created,
            "unchanged": report.unchanged,
            "errors": report.failed,
            "left_with_dataparallel": report.left_with_dataparallel,
            "warnings": sum(len(f["warnings"]) for f in files),
            "exit_code": report.return_code,
            "text": str(report),
        },
        "launch": list(launch),
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _file(outcome: FileOutcome, check: bool, written_to: str | None) -> dict[str, Any]:
    result = outcome.result
    status = {"migrated": "would migrate" if check else "migrated", "failed": "error"}
    warnings = [] if result is None or outcome.status == "failed" else result.diagnostics
    changes = [] if result is None or outcome.status != "migrated" else result.changes
    return {
        "path": outcome.path,
        "status": status.get(outcome.status, outcome.status),
        "created": is_new_file(outcome),
        "written_to": written_to if outcome.status == "migrated" else None,
        "left_with_dataparallel": result is not None and result.keeps_dataparallel,
        "error": _error(outcome),
        "changes": [
            {
                "path": outcome.path,
                "line": c.line,
                "transform": c.transform,
                "message": c.description,
            }
            for c in changes
        ],
        "warnings": [
            {
                "path": outcome.path,
                "line": d.line,
                "col": d.col,
                "code": d.code,
                "message": d.message,
            }
            for d in warnings
        ],
    }


def _error(outcome: FileOutcome) -> dict[str, Any] | None:
    if outcome.status != "failed":
        return None
    text = outcome.error or f"{outcome.path}:1:1: error: failed"
    match = _ERROR.match(text)
    if match is None:
        return {"path": outcome.path, "line": 1, "col": 1, "message": text}
    return {
        "path": match["path"],
        "line": int(match["line"]),
        "col": int(match["col"]),
        "message": match["message"],
    }


# -- github ---------------------------------------------------------------------------------
def github_lines(outcomes: Sequence[FileOutcome], report: Report) -> list[str]:
    """Workflow commands: `::error` for a file that failed (and, when --check fails the run,
    for each file it would migrate, at its DataParallel wrap or else its first change),
    `::warning` for each warning (DP034's folded into one as in the text output)."""
    lines: list[str] = []
    for outcome in fold_unreached(outcomes):
        error = _error(outcome)
        if error is not None:
            lines.append(
                _command(
                    "error", error["path"], error["line"], error["col"], "dp2ddp", error["message"]
                )
            )
            continue
        result = outcome.result
        if result is None:
            continue
        # The generated helpers module gets none: the annotation at its entry says it all.
        if report.fail_on_change and outcome.status == "migrated" and not result.generated:
            from dp2ddp.transforms.model_wrap import WrapModelInDDP  # loaded: it migrated

            wraps = [c.line for c in result.changes if c.transform == WrapModelInDDP.NAME]
            line = min(wraps or [c.line for c in result.changes] or [1])
            message = (
                "dp2ddp migrate would rewrite this file (it uses DataParallel): "
                f"run dp2ddp migrate {outcome.path}"
            )
            lines.append(
                _command("error", outcome.path, line, 1, "dp2ddp migrate --check", message)
            )
        for d in result.diagnostics:
            lines.append(_command("warning", outcome.path, d.line, d.col, d.code, d.message))
    return lines


def _command(kind: str, path: str, line: int, col: int, title: str, message: str) -> str:
    properties = {"file": _repo_path(path), "line": str(line), "col": str(col), "title": title}
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{kind} {joined}::{escape_data(message)}"


def escape_data(text: str) -> str:
    """A workflow command's message, as @actions/core escapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (file=, title=...), as @actions/core escapes it."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _repo_path(path: str) -> str:
    """GitHub places annotations by a path relative to the checkout (the working folder)."""
    if os.path.isabs(path):
        relative = os.path.relpath(path)
        if not relative.startswith(os.pardir):
            path = relative
    return path.replace(os.sep, "/")
