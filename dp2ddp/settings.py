"""Project settings: the `[tool.dp2ddp]` table of pyproject.toml, found as ruff finds its own.

The settings file is the nearest pyproject.toml with a `[tool.dp2ddp]` table in the folder
of the paths given or above it (`--config FILE` names one; `--isolated` reads none). Keys are
the command-line options' names. A bad file (invalid TOML, an unknown key, a wrong type, an
unknown warning code) is one `path:line:col: error: message` line, like a bad input file:
tomllib gives no line numbers for keys, so they are found in the text here.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dp2ddp.codes import CODES
from dp2ddp.errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PYPROJECT = "pyproject.toml"
TABLE = ("tool", "dp2ddp")

#: key -> (type, what it means): the settings reference (docs/ci.md lists the same keys).
KEYS: dict[str, tuple[type, str]] = {
    "per-process-batch": (bool, "as --per-process-batch"),
    "sync-batchnorm": (bool, "as --sync-batchnorm"),
    "keep-summed-loss": (bool, "as --keep-summed-loss"),
    "inline-helpers": (bool, "as --inline-helpers"),
    "exclude": (list, "globs skipped when walking folders, as --exclude"),
    "ignore": (list, "warning codes never reported, as --ignore"),
    "jobs": (int, "processes to migrate with, as -j"),
    "file-timeout": (int, "seconds one file's migration may take, as --file-timeout"),
}


class SettingsError(InputError):
    """A settings file dp2ddp cannot use (reported with its path and line, exit 2)."""


@dataclass(frozen=True)
class Settings:
    """What a settings file says; None: the key is absent (the command line or default wins)."""

    path: str | None = None  # the file read; None: no settings file
    per_process_batch: bool | None = None
    sync_batchnorm: bool | None = None
    keep_summed_loss: bool | None = None
    inline_helpers: bool | None = None
    exclude: tuple[str, ...] = ()
    ignore: frozenset[str] = field(default_factory=frozenset)
    jobs: int | None = None
    file_timeout: int | None = None


def find_settings(paths: Sequence[str], cwd: str | None = None) -> str | None:
    """The nearest pyproject.toml with a [tool.dp2ddp] table above the paths given (their
    common folder; `-`, standard input, counts as the current folder), or None."""
    cwd = cwd or os.getcwd()
    starts = [_start(path, cwd) for path in paths] or [cwd]
    try:
        folder = os.path.commonpath(starts)
    except ValueError:  # different drives (Windows)
        folder = starts[0]
    while True:
        candidate = os.path.join(folder, PYPROJECT)
        if os.path.isfile(candidate) and _has_table(candidate):
            return _shown(candidate, cwd)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load_settings(path: str) -> Settings:
    """Read `path`: a pyproject.toml's [tool.dp2ddp] table, or the top level of any other
    TOML file (e.g. a dp2ddp.toml named with --config). Raises SettingsError."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise SettingsError(f"cannot read the settings: {reason}", path=path) from None
    try:
        text = data.decode("utf-8")
        document = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise SettingsError(f"not UTF-8 text: {exc.reason}", path=path) from None
    except tomllib.TOMLDecodeError as exc:
        raise _toml_error(exc, text, path) from None
    in_pyproject = os.path.basename(path) == PYPROJECT
    table: Any = _table(document) if in_pyproject else document
    lines = _Lines(text, path, in_pyproject)
    if not isinstance(table, dict):
        raise lines.error("[tool.dp2ddp] must be a table", None)
    return _settings(table, lines, path)


# -- reading the table ------------------------------------------------------------------------
def _settings(table: dict[str, Any], lines: _Lines, path: str) -> Settings:
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in KEYS:
            close = difflib.get_close_matches(key, list(KEYS), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            known = ", ".join(KEYS)
            raise lines.error(f"unknown setting '{key}'{hint}; known: {known}", key)
        kind = KEYS[key][0]
        if kind is bool and not isinstance(value, bool):
            raise lines.error(f"'{key}' must be true or false", key)
        if kind is int and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise lines.error(f"'{key}' must be a whole number of at least 1", key)
        if kind is list:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise lines.error(f"'{key}' must be a list of strings", key)
            if key == "ignore":
                for code in value:
                    if code not in CODES:
                        raise lines.error(f"unknown warning code '{code}' in 'ignore'", key, code)
        values[key.replace("-", "_")] = value
    return Settings(
        path=path,
        per_process_batch=values.get("per_process_batch"),
        sync_batchnorm=values.get("sync_batchnorm"),
        keep_summed_loss=values.get("keep_summed_loss"),
        inline_helpers=values.get("inline_helpers"),
        exclude=tuple(values.get("exclude", ())),
        ignore=frozenset(values.get("ignore", ())),
        jobs=values.get("jobs"),
        file_timeout=values.get("file_timeout"),
    )


class _Lines:
    """Where a key (or a string in its value) is written: tomllib does not say."""

    _HEADER = re.compile(r"""^\s*\[\s*["']?tool["']?\s*\.\s*["']?dp2ddp["']?\s*\]""")
    _TABLE = re.compile(r"^\s*\[")

    def __init__(self, text: str, path: str, in_pyproject: bool) -> None:
        self.lines = re.split(r"\r\n|\r|\n", text)
        self.path = path
        self.start = 0  # index of the table's first line (after its header)
        self.end = len(self.lines)
        if in_pyproject:
            header = next((i for i, t in enumerate(self.lines) if self._HEADER.match(t)), None)
            if header is None:  # dotted keys or an inline table: search the whole file
                return
            self.start = header + 1
        self.end = next(
            (i for i in range(self.start, len(self.lines)) if self._TABLE.match(self.lines[i])),
            len(self.lines),
        )

    def error(self, message: str, key: str | None, value: str | None = None) -> SettingsError:
        return SettingsError(message, self._find(key, value), 1, self.path)

    def _find(self, key: str | None, value: str | None) -> int:
        if key is None:
            return max(self.start, 1)
        pattern = re.compile(rf"""^\s*(?:[\w.\-"']*\.)?["']?{re.escape(key)}["']?\s*=""")
        for index in range(self.start, self.end):
            if pattern.match(self.lines[index]):
                if value is not None:
                    return self._value_line(index, value)
                return index + 1
        found = re.compile(  # an inline table, dotted keys, or a [tool.dp2ddp.KEY] table
            rf"""["']?\b{re.escape(key)}\b["']?\s*=|^\s*\[\s*tool\.dp2ddp\.{re.escape(key)}\s*\]"""
        )
        for index, text in enumerate(self.lines):  # an inline table or dotted keys
            if found.search(text):
                return index + 1
        return max(self.start, 1)

    def _value_line(self, key_index: int, value: str) -> int:
        quoted = re.compile(rf"""["']{re.escape(value)}["']""")
        for index in range(key_index, self.end):
            if quoted.search(self.lines[index]):
                return index + 1
        return key_index + 1


def _toml_error(exc: Exception, text: str, path: str) -> SettingsError:
    """tomllib's message ends '(at line L, column C)' or '(at end of document)'."""
    message = str(exc)
    where = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
    if where is not None:
        line, col = int(where.group(1)), int(where.group(2))
        message = message[: where.start()]
    else:
        line, col = text.count("\n") + 1, 1
        message = re.sub(r"\s*\(at end of document\)$", "", message)
    return SettingsError(f"invalid TOML: {message}", line, col, path)


def _shown(path: str, cwd: str) -> str:
    """`path` relative to the current folder when it is inside it (as errors show paths)."""
    relative = os.path.relpath(path, cwd)
    return path if relative.startswith(os.pardir) else relative


def _start(path: str, cwd: str) -> str:
    if path == "-":
        return cwd
    full = os.path.abspath(os.path.join(cwd, path))
    return full if os.path.isdir(full) else os.path.dirname(full)


def _table(document: dict[str, Any]) -> Any:
    tool = document.get(TABLE[0])
    return tool.get(TABLE[1], {}) if isinstance(tool, dict) else {}


def _has_table(path: str) -> bool:
    """Whether a pyproject.toml has a [tool.dp2ddp] table (ruff skips those without its
    own). One that never names dp2ddp is not parsed, so an unrelated broken one on the way
    up is no error; one that does but cannot be parsed is chosen (load_settings says why)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    if b"dp2ddp" not in data:
        return False
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True
    tool = document.get(TABLE[0])
    return isinstance(tool, dict) and TABLE[1] in tool
