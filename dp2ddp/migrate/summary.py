"""The tally of a `migrate` run: its summary line and exit code (black's conventions)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from dp2ddp.codes import UNCONVERTED_DATAPARALLEL
from dp2ddp.result import FileOutcome

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
    unchanged: int = 0
    failed: int = 0
    #: Unchanged files that still use DataParallel in a way dp2ddp only warns about.
    left_with_dataparallel: int = 0
    #: The codes that say so (DP002, DP016, DP038), for the summary line.
    left_codes: set[str] = field(default_factory=set)

    def add(self, outcome: FileOutcome) -> None:
        if outcome.status == "migrated":
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
        for outcome in outcomes:
            self.add(outcome)
        return self

    @property
    def total(self) -> int:
        return self.migrated + self.unchanged + self.failed

    @property
    def return_code(self) -> int:
        """2 if any file failed (it takes precedence), 1 if --check found work (a file to
        migrate, or one left with a DataParallel use it warns about), else 0."""
        if self.failed:
            return EXIT_ERROR
        if self.fail_on_change and (self.migrated or self.left_with_dataparallel):
            return EXIT_WOULD_CHANGE
        return EXIT_OK

    def __str__(self) -> str:
        """E.g. "2 files migrated, 5 unchanged, 1 failed." (zero counts are left out)."""
        if self.total == 0:
            return "No Python files to migrate. Nothing to do."
        parts: list[str] = []
        for count, done, would in (
            (self.migrated, "migrated", "would be migrated"),
            (self.unchanged, "unchanged", "unchanged"),
            (self.failed, "failed", "failed"),
        ):
            if count:
                noun = "" if parts else (" file" if count == 1 else " files")
                parts.append(f"{count}{noun} {would if self.check else done}")
        return ", ".join(parts) + "." + self._left_note()

    def _left_note(self) -> str:
        """Why `--check` fails on unchanged files: they still use DataParallel."""
        n = self.left_with_dataparallel
        if not n:
            return ""
        codes = ", ".join(sorted(self.left_codes))
        which = "it" if n == 1 else "them"
        return (
            f" {n} unchanged file{'s' if n != 1 else ''} still use{'s' if n == 1 else ''} "
            f"DataParallel in a way dp2ddp does not rewrite ({codes}, below): port "
            f"{which} by hand."
        )
