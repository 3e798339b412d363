"""The tally of a `migrate` run: its summary line and exit code (black's conventions), and
DP034's warnings folded for printing."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from dp2ddp.codes import UNCONVERTED_DATAPARALLEL, title
from dp2ddp.result import Diagnostic, FileOutcome

#: Exit codes of `dp2ddp migrate` (a contract: scripts depend on them).
EXIT_OK = 0
EXIT_WOULD_CHANGE = 1
EXIT_ERROR = 2


@dataclass
class Report:
    """Counts of one run. `check` means nothing is written (--check/--diff): "would" wording."""

    check: bool = False
    #: Exit 1 when files would change (--check); --diff alone still exits 0.
    fail_on_change: bool = False
    migrated: int = 0
    #: Files the migration adds (the generated helpers module, the first time).
    created: int = 0
    unchanged: int = 0
    failed: int = 0
    #: Unchanged files that still use DataParallel in a way dp2ddp only warns about.
    left_with_dataparallel: int = 0
    #: The codes that say so (DP002, DP016, DP038), for the summary line.
    left_codes: set[str] = field(default_factory=set)
    #: Warnings left after silencing (ruff's findings): `--check` fails on them too,
    #: on unmigrated and migrated files alike (migrate/markers.py), unless `exit_zero`.
    findings: int = 0
    #: --exit-zero: warnings are printed but do not fail `--check` (files to migrate do).
    exit_zero: bool = False

    def add(self, outcome: FileOutcome) -> None:
        if is_new_file(outcome):
            self.created += 1
        elif outcome.status == "migrated":
            self.migrated += 1
        elif outcome.status == "unchanged":
            self.unchanged += 1
            if outcome.result is not None and outcome.result.keeps_dataparallel:
                self.left_with_dataparallel += 1
                self.left_codes.update(
                    d.code for d in outcome.result.diagnostics if d.code in UNCONVERTED_DATAPARALLEL
                )
        else:
            self.failed += 1

    def add_all(self, outcomes: Iterable[FileOutcome]) -> Report:
        outcomes = list(outcomes)
        for outcome in outcomes:
            self.add(outcome)
        # the warnings as printed: a run's DP034 lines folded into one
        self.findings += sum(
            len(o.result.diagnostics)
            for o in fold_unreached(outcomes)
            if o.status != "failed" and o.result is not None
        )
        return self

    @property
    def total(self) -> int:
        return self.migrated + self.created + self.unchanged + self.failed

    @property
    def return_code(self) -> int:
        """2 if any file failed (it takes precedence), 1 if --check found work (a file to
        migrate, one left with a DataParallel use it warns about, or any warning left
        unsilenced unless --exit-zero), else 0."""
        if self.failed:
            return EXIT_ERROR
        if self.fail_on_change and (self.migrated or self.created or self.left_with_dataparallel):
            return EXIT_WOULD_CHANGE
        if self.fail_on_change and self.findings and not self.exit_zero:
            return EXIT_WOULD_CHANGE
        return EXIT_OK

    def __str__(self) -> str:
        """E.g. "2 files migrated, 1 created, 5 unchanged, 1 failed." (zero counts are left
        out)."""
        if self.total == 0:
            return "No Python files to migrate. Nothing to do."
        parts: list[str] = []
        for count, done, would in (
            (self.migrated, "migrated", "would be migrated"),
            (self.created, "created", "would be created"),
            (self.unchanged, "unchanged", "unchanged"),
            (self.failed, "failed", "failed"),
        ):
            if count:
                noun = "" if parts else (" file" if count == 1 else " files")
                parts.append(f"{count}{noun} {would if self.check else done}")
        return ", ".join(parts) + "." + self._left_note() + self._findings_note()

    def _findings_note(self) -> str:
        """Why `--check` fails on files it would not change: warnings left (ruff's model).
        Said only when they are the reason (no file to migrate, none failed)."""
        n = self.findings
        if not n or not self.fail_on_change or self.exit_zero:
            return ""
        if self.failed or self.migrated or self.created or self.left_with_dataparallel:
            return ""
        return (
            f" {n} warning{'s' if n != 1 else ''} (above) fail{'s' if n == 1 else ''} "
            "--check: resolve each, or silence it with `# noqa: DPxxx` on its line."
        )

    def _left_note(self) -> str:
        """Why `--check` fails on unchanged files: they still use DataParallel."""
        n = self.left_with_dataparallel
        if not n:
            return ""
        codes = ", ".join(sorted(self.left_codes))
        which = "it" if n == 1 else "them"
        return (
            f" {n} unchanged file{'s' if n != 1 else ''} still use{'s' if n == 1 else ''} "
            f"DataParallel in a way dp2ddp does not rewrite ({codes}, above): port "
            f"{which} by hand."
        )


def is_new_file(outcome: FileOutcome) -> bool:
    """A file the migration creates (the generated helpers module, the first time): its
    outcome's source is empty, as no file with DataParallel is."""
    return (
        outcome.status == "migrated" and outcome.result is not None and outcome.result.source == ""
    )


# -- DP034, folded: one line a run names the program's unreached modules -----------------------
#: DP034 is one warning per DataParallel module the program does not reach, so that JSON
#: lists each one; printed, they are folded into one line a run (`fold_unreached`).
UNREACHED = "DP034"
#: How many of the unreached modules the folded line names.
SHOWN_UNREACHED = 3
#: Why a module is unreached when the program has no import by run-time name ({it}: it/them).
NOT_IMPORTED = "no import of the program names {it}"
_UNREACHED = re.compile(
    rf"^{re.escape(title(UNREACHED))}: (?P<file>.*) is left as it is \((?P<why>.*)\)$", re.S
)


def unreached_message(file: str, why: str) -> str:
    """DP034's message for one module (what `fold_unreached` reads back)."""
    return f"{title(UNREACHED)}: {file} is left as it is ({why})"


def fold_unreached(outcomes: Sequence[FileOutcome]) -> list[FileOutcome]:
    """`outcomes` as printed: each outcome's DP034 warnings folded into one, naming the count
    and the first SHOWN_UNREACHED modules, and a module already named earlier in the run not
    named again (with several entries, each program leaves the same modules). A lone DP034
    stays as it is. JSON output keeps every one (commands/output_formats.py)."""
    named: set[str] = set()
    folded: list[FileOutcome] = []
    for outcome in outcomes:
        result = outcome.result
        if result is None or not any(d.code == UNREACHED for d in result.diagnostics):
            folded.append(outcome)
            continue
        kept: list[Diagnostic] = []
        first: Diagnostic | None = None
        files: list[str] = []
        why = ""
        for diagnostic in result.diagnostics:
            match = _UNREACHED.match(diagnostic.message)
            if diagnostic.code != UNREACHED or match is None:
                kept.append(diagnostic)
                continue
            if match["file"] in named:
                continue
            named.add(match["file"])
            files.append(match["file"])
            if first is None:
                first, why = diagnostic, match["why"]
                kept.append(diagnostic)  # its place: replaced below when there are more
        if first is not None and len(files) > 1:
            index = kept.index(first)
            kept[index] = replace(first, message=_folded_message(files, why))
        folded.append(replace(outcome, result=replace(result, diagnostics=tuple(kept))))
    return folded


def _folded_message(files: Sequence[str], why: str) -> str:
    shown = ", ".join(files[:SHOWN_UNREACHED])
    more = len(files) - SHOWN_UNREACHED
    if more > 0:
        shown += f" and {more} more"
    why = why.replace(NOT_IMPORTED.format(it="it"), NOT_IMPORTED.format(it="them"))
    return (
        f"{title(UNREACHED)}: {len(files)} DataParallel modules of the project are left as "
        f"they are ({why}): {shown} (--output-format json lists each)"
    )
