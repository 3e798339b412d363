"""The project's line length, read from its formatter's or linter's settings.

dp2ddp wraps the lines it writes, and places the imports it adds, the way the project's own
tools would (migrate/tidy.py), so a lint-clean project stays lint-clean. The width is the
first of these found in the file's folder or, failing that, the nearest folder above it
(ruff's discovery: the nearest file that holds a setting wins):

1. `.ruff.toml`, `ruff.toml`: `line-length`;
2. `pyproject.toml`: `[tool.ruff] line-length`, else `[tool.black] line-length`;
3. `setup.cfg`, `tox.ini`, `.flake8`: `[flake8] max-line-length`;
4. `.editorconfig`: `max_line_length` of the last section that matches `*.py`.

88 (black's and ruff's default) when none says. A file that cannot be read or parsed is
passed over, as if it said nothing: a broken settings file is its own tool's to report.
"""

from __future__ import annotations

import configparser
import fnmatch
import os
import re
import sys
from functools import cache
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: black's and ruff's default width.
DEFAULT = 88
#: A width outside this range is taken for a mistake (ruff accepts 1..320).
_RANGE = range(1, 321)


def line_length(path: str) -> int:
    """The line length that applies to the file at `path` (`<stdin>`: the current folder)."""
    folder = os.path.dirname(os.path.abspath(path))
    return _in_or_above(folder)


@cache
def _in_or_above(folder: str) -> int:
    found = _in(folder)
    if found is not None:
        return found
    parent = os.path.dirname(folder)
    if parent == folder:
        return DEFAULT
    return _in_or_above(parent)


def _in(folder: str) -> int | None:
    for name in (".ruff.toml", "ruff.toml"):
        found = _toml_width(os.path.join(folder, name), ("line-length",))
        if found is not None:
            return found
    pyproject = os.path.join(folder, "pyproject.toml")
    for keys in (("tool", "ruff", "line-length"), ("tool", "black", "line-length")):
        found = _toml_width(pyproject, keys)
        if found is not None:
            return found
    for name in ("setup.cfg", "tox.ini", ".flake8"):
        found = _flake8_width(os.path.join(folder, name))
        if found is not None:
            return found
    return _editorconfig_width(os.path.join(folder, ".editorconfig"))


@cache
def _toml(path: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, ValueError):  # missing, unreadable, not TOML (TOMLDecodeError)
        return None


def _toml_width(path: str, keys: tuple[str, ...]) -> int | None:
    value: Any = _toml(path)
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return _width(value)


def _width(value: Any) -> int | None:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool) and value in _RANGE:
        return value
    return None


def _flake8_width(path: str) -> int | None:
    if not os.path.isfile(path):
        return None
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return None
    if not parser.has_section("flake8"):
        return None
    for key in ("max-line-length", "max_line_length"):
        if parser.has_option("flake8", key):
            return _width(parser.get("flake8", key))
    return None


_SECTION = re.compile(r"^\s*\[(.*)\]\s*$")
_PAIR = re.compile(r"^\s*([^=:#;\s][^=:]*?)\s*[=:]\s*(.*?)\s*$")


def _editorconfig_width(path: str) -> int | None:
    """editorconfig: the last matching section wins; `off` means no limit (none found)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    found: int | None = None
    matches = False
    for line in text.splitlines():
        if line.lstrip().startswith(("#", ";")):
            continue
        section = _SECTION.match(line)
        if section is not None:
            matches = _matches_python(section.group(1))
            continue
        pair = _PAIR.match(line)
        if pair is not None and matches and pair.group(1).lower() == "max_line_length":
            found = _width(pair.group(2))
    return found


def _matches_python(glob: str) -> bool:
    """Whether an editorconfig section glob (`*`, `*.py`, `*.{py,pyi}`, `**.py`) takes a
    Python file of any folder."""
    alternatives = [glob]
    brace = re.search(r"\{([^{}]*)\}", glob)
    if brace is not None:
        head, tail = glob[: brace.start()], glob[brace.end() :]
        alternatives = [head + part + tail for part in brace.group(1).split(",")]
    for each in alternatives:
        pattern = each.lstrip("/").replace("**", "*")
        if "/" in pattern:
            pattern = pattern.rsplit("/", 1)[1]
        if fnmatch.fnmatchcase("module.py", pattern):
            return True
    return False


#: Files that mark a project's root for its import sorter (ruff's and isort's settings).
_ROOT_MARKERS = (
    "pyproject.toml",
    "ruff.toml",
    ".ruff.toml",
    "setup.cfg",
    "tox.ini",
    ".isort.cfg",
    ".git",
)


def helpers_first_party(entry_dir: str, helpers: str) -> bool:
    """Whether isort (ruff's by default) counts the generated helpers module, imported as
    `helpers` from a program whose entry is in `entry_dir`, as first party: its top-level
    name is found in a source root (the project root, the folder of its settings, else
    the current folder; and its `src/`), as ruff's default `src = [".", "src"]` finds it.
    Where it is not (an entry in `tools/` of a project run from the top), ruff sorts it with
    the third-party imports, and so does dp2ddp."""
    folder = os.path.abspath(entry_dir or ".")
    root = _root(folder)
    roots = {root, os.path.join(root, "src")}
    top = helpers.split(".")[0]
    if "." not in helpers:
        return folder in roots  # the generated module lies in the entry's folder
    return any(os.path.exists(os.path.join(r, top)) for r in roots)


def _root(folder: str) -> str:
    current = folder
    while True:
        if any(os.path.exists(os.path.join(current, m)) for m in _ROOT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return os.getcwd()
        current = parent
