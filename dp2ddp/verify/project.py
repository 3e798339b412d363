"""`dp2ddp verify ENTRY.py`: migrate the program in a temporary copy of its project.

The migrated program must run where the original runs: the same relative data paths, the
same working directory (relative to the project), the same project-local imports. verify
therefore copies the project tree into its temporary directory, migrates ENTRY inside the
copy with the very code path of `dp2ddp migrate ENTRY.py` (so a migration of the whole
program, entry and imported modules, is verified as soon as `migrate` does it), and runs the
migrated entry from the copy. The user's files are only read.

`project_root` is the one definition of "the project" (the migrate side may share it).
The copy skips the folders that migrate's discovery never walks (.git, virtual environments,
caches, build output) and stops with a clear error above COPY_LIMIT_BYTES.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

# The one place that reaches into the migrate side: the engine `dp2ddp migrate ENTRY.py`
# runs (plan the program, write it: commands/migrate.py's migrate_paths does the same, with a
# progress bar) and the folders its discovery skips. verify sits beside the migrate command,
# not above it: it imports the engine, never dp2ddp.commands. Re-point these imports when the
# migrate package moves.
from dp2ddp.migrate.discovery import SKIPPED_DIRS, is_virtualenv
from dp2ddp.migrate.files import write_in_place
from dp2ddp.migrate.suppress import silence
from dp2ddp.options import MigrateOptions
from dp2ddp.result import FileOutcome


def _migrate_in_place(entry: Path, options: MigrateOptions) -> list[FileOutcome]:
    """What `dp2ddp migrate ENTRY.py` does to the files, quietly and in one process."""
    from dp2ddp.program.folder import plan_paths
    from dp2ddp.program.migrate import write_plan

    plan = plan_paths([str(entry)], (), options, jobs=1, sink=write_in_place)
    write_plan(plan)
    return plan.outcomes


#: Files that mark a project's root folder.
PROJECT_MARKERS = ("pyproject.toml", "setup.py", ".git")
#: Largest project verify copies (bytes, the skipped folders not counted).
COPY_LIMIT_BYTES = 512 * 1024 * 1024


class ProjectError(Exception):
    """The project cannot be copied or migrated (one line, for the user)."""


def project_root(entry: Path) -> Path:
    """The nearest folder up from `entry` holding pyproject.toml, setup.py or .git; else the
    entry's own folder."""
    start = entry.resolve().parent
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return start


def copy_project(root: Path, destination: Path, limit: int = COPY_LIMIT_BYTES) -> None:
    """Copy `root`'s tree into `destination` (created), without the skipped folders.

    A symbolic link is copied as a link to what it resolves to, so data reached through it
    stays reachable without being copied; nothing is written through it by the copy."""
    total = 0
    destination = destination.resolve()
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if here == destination or destination in here.parents:
            dirs[:] = []  # the copy itself, when verify's temporary folder is in the project
            continue
        target = destination / here.relative_to(root)
        target.mkdir(parents=True, exist_ok=True)
        kept = []
        for name in sorted(dirs):
            source = here / name
            if source.is_symlink():
                os.symlink(os.path.realpath(source), target / name)
            elif name in SKIPPED_DIRS or is_virtualenv(str(source)):
                continue  # as migrate's discovery: version control, caches, virtualenvs
            elif not name.endswith(".egg-info"):
                kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            source = here / name
            if source.is_symlink():
                os.symlink(os.path.realpath(source), target / name)
                continue
            try:
                total += source.stat().st_size
            except OSError:
                continue
            if total > limit:
                raise ProjectError(
                    f"{root}: the project holds more than {limit // 2**20} MiB to copy "
                    f"(without {', '.join(sorted(SKIPPED_DIRS)[:4])}, ...); verify migrates "
                    "and runs a copy of it. Migrate a copy yourself and run "
                    "`dp2ddp verify ORIGINAL MIGRATED`, or move large data out of the project."
                )
            shutil.copy2(source, target / name)


@dataclass(frozen=True)
class MigratedProject:
    root: Path  # the user's project root
    copy: Path  # its copy
    entry: Path  # the migrated entry, inside the copy
    code: str  # the migrated entry's text
    files: tuple[str, ...]  # files the migration changed, relative to the root
    warnings: tuple[str, ...]  # `path:line:col CODE message`, paths as in the user's tree


def migrate_copy(entry: Path, workdir: Path, options: MigrateOptions) -> MigratedProject:
    """Copy ENTRY's project into `workdir` and migrate ENTRY there as `dp2ddp migrate` does."""
    entry = entry.resolve()
    root = project_root(entry)
    copy = workdir / "project"
    try:
        copy_project(root, copy)
    except OSError as exc:
        raise ProjectError(f"{root}: cannot copy the project: {exc}") from None
    copied_entry = copy / entry.relative_to(root)

    def as_users(text: str) -> str:
        return text.replace(str(copy), str(root))

    outcomes = _migrate_in_place(copied_entry, options)
    outcomes = silence(outcomes, options.ignore)  # as `dp2ddp migrate` reports them
    failed = [o for o in outcomes if o.status == "failed"]
    if failed:
        raise ProjectError(as_users(failed[0].error or f"{entry}: cannot migrate"))
    migrated = [o for o in outcomes if o.status == "migrated" and o.result is not None]
    if not migrated:
        raise ProjectError(
            f"{entry}: nothing to migrate (no DataParallel found), so nothing to verify"
        )
    warnings = tuple(
        as_users(d.format(o.path)) for o in migrated if o.result for d in o.result.diagnostics
    )
    code = copied_entry.read_text(encoding="utf-8")
    files = tuple(str(Path(o.path).resolve().relative_to(copy)) for o in migrated)
    return MigratedProject(root, copy, copied_entry, code, files, warnings)
