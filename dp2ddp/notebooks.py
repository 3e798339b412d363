"""Jupyter notebooks (`.ipynb`) that use DataParallel: never skipped in silence.

dp2ddp migrates scripts (torchrun launches scripts, one process per GPU; a notebook's
kernel is one process), so a notebook is not rewritten. `dp2ddp migrate` reports each
notebook whose code cells use `DataParallel` with DP038 at the line of the `.ipynb` file
(and which cell), counts it as a file still using DataParallel (`--check` fails on it), and
leaves it byte for byte. Notebooks without DataParallel are not reported at all.
"""

from __future__ import annotations

import json
import re

from dp2ddp.codes import CODES
from dp2ddp.errors import InputError
from dp2ddp.result import Diagnostic, FileOutcome, MigrationResult

SUFFIX = ".ipynb"
NOTEBOOK_CODE = "DP038"
_DATAPARALLEL = re.compile(r"(?<![A-Za-z_])DataParallel\b")


def is_notebook(path: str) -> bool:
    return path.endswith(SUFFIX)


def notebook_outcome(path: str) -> FileOutcome | None:
    """DP038 for a notebook whose code cells use DataParallel; None when none does. An
    unreadable notebook fails (one line), like an unreadable script."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        text = data.decode("utf-8")
        cells = json.loads(text).get("cells", [])
    except (OSError, UnicodeDecodeError, ValueError, AttributeError) as exc:
        message = f"cannot read the notebook: {type(exc).__name__}: {exc}".splitlines()[0]
        return FileOutcome(path, "failed", error=InputError(message).format(path))
    found = _first_use(cells)
    if found is None:
        return None
    cell, cell_line, code_line = found
    line, col = _position(text, code_line)
    message = (
        f"{CODES[NOTEBOOK_CODE][0]} (code cell {cell}, line {cell_line}): not migrated; "
        "export it with `jupyter nbconvert --to script` and migrate the script"
    )
    result = MigrationResult(text, text, (Diagnostic(line, col, NOTEBOOK_CODE, message),))
    return FileOutcome(path, "unchanged", result)


def _first_use(cells: object) -> tuple[int, int, str] | None:
    """(code cell number from 1, line in the cell from 1, that line) of the first use."""
    if not isinstance(cells, list):
        return None
    number = 0
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        for index, line in enumerate(text.splitlines(), start=1):
            if not line.lstrip().startswith("#") and _DATAPARALLEL.search(line):
                return number, index, line
    return None


def _position(text: str, code_line: str) -> tuple[int, int]:
    """The line and column of that use in the .ipynb file itself (its JSON string)."""
    encoded = json.dumps(code_line)[1:-1]
    lines = text.splitlines()
    for wanted in (encoded, ""):
        for index, line in enumerate(lines, start=1):
            match = _DATAPARALLEL.search(line)
            if match and wanted in line:
                return index, match.start() + 1
    return 1, 1
