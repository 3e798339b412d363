"""Warnings a project has accepted: `ignore` codes and `# noqa` comments.

Applied to finished outcomes, after the passes (which never see it): a warning whose code
is ignored is dropped; one on a line that ends with `# noqa` (every dp2ddp code) or
`# noqa: DP008[, DP012...]` (those codes) is dropped there only. The line is the one the
warning points at, in the user's file. A warning that names several places at once
(DP008's "nn.BatchNorm1d and 1 more": Diagnostic.places) loses only its silenced places:
the others are reported one by one at their own lines. A silenced DP002/DP016 no longer
makes `--check` fail, since the outcome no longer holds it (MigrationResult.keeps_dataparallel).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence

from dp2ddp.result import Diagnostic, FileOutcome, MigrationResult

#: flake8's and ruff's form: `#` noqa, noqa: A1, noqa:A1,B2, NOQA: A1 B2 (in a comment).
_NOQA = re.compile(
    r"#\s*noqa(?::\s?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE
)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)
#: Every code (a bare noqa comment).
ALL = frozenset({"*"})


def silence(outcomes: Iterable[FileOutcome], ignore: frozenset[str]) -> list[FileOutcome]:
    """The outcomes without the warnings the project silenced."""
    result: list[FileOutcome] = []
    for outcome in outcomes:
        if outcome.result is not None and outcome.result.diagnostics:
            kept = silence_result(outcome.result, ignore)
            if kept is not outcome.result:
                outcome = dataclasses.replace(outcome, result=kept)
        result.append(outcome)
    return result


def silence_result(result: MigrationResult, ignore: frozenset[str]) -> MigrationResult:
    """`result` without its silenced warnings (the same object when none is)."""
    kept = filter_diagnostics(result.diagnostics, result.source, ignore)
    if kept == result.diagnostics:
        return result
    return dataclasses.replace(result, diagnostics=kept)


def filter_diagnostics(
    diagnostics: Sequence[Diagnostic], source: str, ignore: frozenset[str]
) -> tuple[Diagnostic, ...]:
    noqa = NoqaLines(source)

    def silenced(d: Diagnostic) -> bool:
        return d.code in ignore or noqa.silences(d.line, d.code)

    kept: list[Diagnostic] = []
    split = False
    for diagnostic in diagnostics:
        if diagnostic.code in ignore:
            continue
        if not diagnostic.places:
            if not silenced(diagnostic):
                kept.append(diagnostic)
            continue
        places = [p for p in diagnostic.places if not silenced(p)]
        if len(places) == len(diagnostic.places):
            kept.append(diagnostic)
        else:
            kept += places
            split = True
    if split:  # places reported alone go where their lines are
        kept.sort(key=lambda d: (d.line, d.col, d.code))
    return tuple(kept)


class NoqaLines:
    """The `# noqa` comments of a source text, by line number (1-based)."""

    def __init__(self, source: str) -> None:
        self._source = source
        self._any = re.search("noqa", source, re.IGNORECASE) is not None
        self._lines: list[str] | None = None
        self._cache: dict[int, frozenset[str] | None] = {}

    def silences(self, line: int, code: str) -> bool:
        codes = self.codes(line)
        return codes is not None and (codes is ALL or code in codes)

    def codes(self, line: int) -> frozenset[str] | None:
        """ALL for a bare `# noqa`, the codes named, or None (no noqa comment there)."""
        if line in self._cache:
            return self._cache[line]
        found: frozenset[str] | None = None
        if self._any:
            if self._lines is None:
                self._lines = re.split(r"\r\n|\r|\n", self._source)
            if 1 <= line <= len(self._lines):
                found = parse_noqa(self._lines[line - 1])
        self._cache[line] = found
        return found


def parse_noqa(text: str) -> frozenset[str] | None:
    """The codes a line's `# noqa` comment names: ALL for a bare one; None without one."""
    match = _NOQA.search(text)
    if match is None:
        return None
    codes = match.group("codes")
    if codes is None:
        return ALL
    return frozenset(code.upper() for code in _CODE.findall(codes))
