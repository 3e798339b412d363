"""`dp2ddp verify ENTRY.py`: migrate the program in a temporary copy of its project.

The migrated program must run where the original runs: the same relative data paths, the
same working directory (relative to the project), the same project-local imports. verify
therefore copies the project tree into its temporary directory, migrates ENTRY inside the
copy with the very code path of `dp2ddp migrate ENTRY.py` (so a migration of the whole
program, entry and imported modules, is verified as soon as `migrate` does it), and runs the
migrated entry from the copy. The user's files are only read.

The project is the program's: `program_roots` asks migrate's discovery for the folder every
file of the program lies under (its root, widened by the program's sys.path edits:
program/search_path.py) and copies that folder. The copy skips the folders that migrate's
discovery never walks (.git, virtual environments, caches, build output), links what
.gitignore or --exclude leave out (data, checkpoints; not Python code) instead of copying
it, and stops with an error naming the largest folders above COPY_LIMIT_BYTES. As .git
is not copied, the folder migrate took for the root (found by its marker, perhaps .git
alone) is marked in the copy (ImportGraph's `marked`), so that the
copy's migration has the root, the search path and the files `dp2ddp migrate` has (before,
a project marked by .git alone was migrated in the copy as the entry's folder: a smaller
program, and a false NOT EQUIVALENT; docs/real-world.md, stop 30, V1).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

# The one place that reaches into the migrate side: the engine `dp2ddp migrate ENTRY.py`
# runs (plan the program, write it: commands/migrate.py's migrate_paths does the same, with a
# progress bar) and the folders its discovery skips. verify sits beside the migrate command,
# not above it: it imports the engine, never dp2ddp.commands. Re-point these imports when the
# migrate package moves.
from dp2ddp.errors import InputError
from dp2ddp.gitignore import ignored_under
from dp2ddp.migrate.discovery import SKIPPED_DIRS, is_virtualenv
from dp2ddp.migrate.files import write_in_place
from dp2ddp.migrate.sourcefile import decode
from dp2ddp.migrate.summary import fold_unreached
from dp2ddp.migrate.suppress import silence
from dp2ddp.options import MigrateOptions
from dp2ddp.program.discovery import ROOT_MARKERS, discover_program, find_root
from dp2ddp.program.sys_path import resolve_edit
from dp2ddp.result import FileOutcome
from dp2ddp.verify.in_copy import search_path_in_copy


def _migrate_in_place(entry: Path, options: MigrateOptions, root: Path) -> list[FileOutcome]:
    """What `dp2ddp migrate ENTRY.py` does to the files, quietly and in one process, with
    `root` taken as the project's root wherever the walk up from ENTRY reaches it."""
    from dp2ddp.program.folder import plan_paths
    from dp2ddp.program.write import write_plan

    marked = frozenset({str(root)})
    plan = plan_paths([str(entry)], (), options, jobs=1, sink=write_in_place, marked=marked)
    write_plan(plan)
    return plan.outcomes


#: Files that mark a project's root folder (discovery's).
PROJECT_MARKERS = ROOT_MARKERS
#: Largest project verify copies (bytes, the skipped folders not counted).
COPY_LIMIT_BYTES = 512 * 1024 * 1024


class ProjectError(Exception):
    """The project cannot be copied or migrated (one line, for the user)."""


def project_root(entry: Path) -> Path:
    """The nearest folder up from `entry` holding pyproject.toml, setup.py or .git; else the
    entry's own folder (discovery.find_root: the root `dp2ddp migrate` finds)."""
    return Path(find_root(str(entry.resolve().parent)))


def program_roots(entry: Path) -> tuple[Path, Path, str]:
    """(the folder verify copies, the root migrate finds, why the first is the project) for
    ENTRY: every file of ENTRY's program lies under the first (the root, widened by the
    program's sys.path edits), which holds the second. A program discovery cannot read is
    copied from its root (the migration in the copy then reports the error). Why: the root's
    marker, else the entry's folder, or the folder a sys.path edit of the program or a
    PYTHONPATH folder widened it to (micronet@c31cdd2's `sys.path.append("../../../..")`
    reached /work: docs/real-world.md, stop 51)."""
    root = project_root(entry)
    try:
        program = discover_program(str(entry.resolve()))
    except InputError:
        return root, root, _found_why(root)
    copied = Path(program.files_root or program.root)
    if copied == root:
        return copied, root, _found_why(root)
    for module in program.modules:
        for edit in module.path_edits:
            folder = resolve_edit(edit, str(root)) if edit.anchored else None
            if folder is not None and Path(os.path.commonpath([root, folder])) == copied:
                return (
                    copied,
                    root,
                    (
                        f"the folder the sys.path edit at {os.path.relpath(module.real, copied)}:"
                        f"{edit.line} "
                        f"({edit.folder!r}) reaches from {root}, {_found_why(root)}"
                    ),
                )
    for entry_folder in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        folder = os.path.abspath(entry_folder) if entry_folder else ""
        if folder and Path(os.path.commonpath([root, folder])) == copied:
            return (
                copied,
                root,
                f"the folder above {root}, {_found_why(root)}, and {folder} of PYTHONPATH",
            )
    return copied, root, f"the folder the program's sys.path edits reach from {root}"


def _found_why(root: Path) -> str:
    found = next((m for m in PROJECT_MARKERS if (root / m).exists()), None)
    return f"the nearest folder up with {found}" if found else "the entry's folder"


@dataclass
class CopyPlan:
    """What `copy_project` copies (counted against the limit) and links instead."""

    copied_bytes: int = 0
    linked: int = 0  # files linked from the project: .gitignore'd or --exclude'd, not code
    linked_bytes: int = 0
    #: bytes to copy per top-level entry of the project (the error names the largest)
    by_entry: dict[str, int] = field(default_factory=dict)


def _matches(rel: str, name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatchcase(name, p) or fnmatchcase(rel, p) for p in patterns)


def _walk_project(
    root: Path, destination: Path, exclude: Sequence[str], leave_out: Sequence[Path] = ()
) -> Iterator[tuple[Path, str, Path | None, bool]]:
    """(source, relative path, None for a folder / the file, linked?) in copy order.

    Folders that migrate never walks are left out. A .gitignore'd or --exclude'd file is
    linked, not copied (data, checkpoints: the runs read them where they are), except Python
    code, which the migration may rewrite in the copy."""
    ignored = ignored_under(str(root))
    patterns = [p.rstrip("/") or p for p in exclude]
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        skipped = [destination, *leave_out]
        if any(here == skip or skip in here.parents for skip in skipped):
            dirs[:] = []  # the copy itself, when verify's temporary folder is in the project
            continue
        rel_here = here.relative_to(root).as_posix()
        outside = rel_here != "." and (
            str(here) in ignored or _matches(rel_here, here.name, patterns)
        )
        yield here, rel_here, None, outside
        kept = []
        for name in sorted(dirs):
            source = here / name
            if source.is_symlink():
                yield source, _rel(rel_here, name), source, False
            elif name in SKIPPED_DIRS or is_virtualenv(str(source)):
                continue  # as migrate's discovery: version control, caches, virtualenvs
            elif not name.endswith(".egg-info"):
                kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            source, rel = here / name, _rel(rel_here, name)
            linked = (
                outside or str(source) in ignored or _matches(rel, name, patterns)
            ) and not name.endswith(".py")
            yield source, rel, source, linked


def _rel(folder: str, name: str) -> str:
    return name if folder == "." else f"{folder}/{name}"


def plan_copy(
    root: Path, destination: Path, exclude: Sequence[str] = (), leave_out: Sequence[Path] = ()
) -> CopyPlan:
    """The bytes `copy_project` would copy, and what it would link."""
    plan = CopyPlan()
    for source, rel, file, linked in _walk_project(root, destination.resolve(), exclude, leave_out):
        if file is None or source.is_symlink():
            continue
        try:
            size = source.stat().st_size
        except OSError:
            continue
        if linked:
            plan.linked += 1
            plan.linked_bytes += size
        else:
            plan.copied_bytes += size
            top = rel.split("/", 1)[0] + ("/" if "/" in rel else "")
            plan.by_entry[top] = plan.by_entry.get(top, 0) + size
    return plan


def _mib(size: int) -> str:
    return f"{size / 2**20:,.0f} MiB" if size >= 2**20 else f"{size / 2**10:,.0f} KiB"


def too_large(root: Path, plan: CopyPlan, limit: int, why: str = "") -> str:
    """The error for a project above the limit: what is large, and what to do. `why`: why
    `root` is the project (program_folders'), else found from its marker."""
    largest = sorted(plan.by_entry.items(), key=lambda item: -item[1])[:3]
    why = why or _found_why(root)
    excludes = " ".join(f"--exclude {name.rstrip('/')}" for name, _ in largest)
    return (
        f"{root} ({why}, the project verify copies) holds {_mib(plan.copied_bytes)} to copy, "
        f"more than {limit // 2**20} MiB; largest: "
        + ", ".join(f"{name} {_mib(size)}" for name, size in largest)
        + f". Data and checkpoints listed in .gitignore are linked, not copied: add them "
        f"there or pass {excludes} (linked from your project too); or migrate a copy "
        "yourself and run `dp2ddp verify ORIGINAL MIGRATED`."
    )


def copy_project(
    root: Path,
    destination: Path,
    limit: int = COPY_LIMIT_BYTES,
    exclude: Sequence[str] = (),
    why: str = "",
    leave_out: Sequence[Path] = (),
) -> CopyPlan:
    """Copy `root`'s tree into `destination` (created), without the skipped folders (and
    `leave_out`: verify's temporary folder where it lies inside `root`, the project where
    the folder verify's ENTRY run starts in holds it).

    A symbolic link is copied as a link to what it resolves to, so data reached through it
    stays reachable without being copied; nothing is written through it by the copy. A
    .gitignore'd or --exclude'd file (not Python code) becomes such a link too and does not
    count towards `limit`."""
    destination = destination.resolve()
    leave_out = tuple(p.resolve() for p in leave_out)
    plan = plan_copy(root, destination, exclude, leave_out)
    if plan.copied_bytes > limit:
        raise ProjectError(too_large(root, plan, limit, why))
    for source, rel, file, linked in _walk_project(root, destination, exclude, leave_out):
        target = destination / rel
        if file is None:
            target.mkdir(parents=True, exist_ok=True)
        elif source.is_symlink() or linked:
            os.symlink(os.path.realpath(source), target)
        else:
            try:
                shutil.copy2(source, target)
            except FileNotFoundError:
                continue  # vanished meanwhile
    return plan


def copy_run_folder(
    cwd: Path, workdir: Path, exclude: Sequence[str] = (), project: tuple[Path, Path] | None = None
) -> Path:
    """A copy of the working folder `cwd`, made in `workdir` before either run starts, for
    the migrated run of `verify ORIGINAL MIGRATED`: both runs started in `cwd` at once, so a
    program that asks before it reuses its run folder ("Remove snapshot/... ? (y/n)") found
    the other's and read end of file, and files of fixed names were each other's
    (AnTao97/UnsupervisedPointCloudReconstruction@b589694: stop 56 v4-F). Data and
    checkpoints the .gitignore names are linked, as in the project's copy. Raises
    ProjectError where it cannot be made (too large: the runs then go one after the other).
    `project`: (the project's migrated copy, its root) for `verify ENTRY` started outside the
    project: where `cwd` holds the root, the copy of `cwd` holds a link to the migrated copy
    there instead of a second copy of the project."""
    copy = workdir / "run_folder"
    inside = (
        project[1].resolve()
        if project is not None and project[1].resolve().is_relative_to(cwd.resolve())
        else None
    )
    try:
        copy_project(cwd, copy, exclude=exclude, why="the folder both runs start in",
                     leave_out=(workdir, *([inside] if inside else [])))  # fmt: skip
        if project is not None and inside is not None:
            link = copy / inside.relative_to(cwd.resolve())
            link.parent.mkdir(parents=True, exist_ok=True)
            if link.is_dir() and not link.is_symlink():
                shutil.rmtree(link)
            os.symlink(project[0].resolve(), link)
    except OSError as exc:
        raise ProjectError(f"{cwd}: cannot copy the working folder: {exc}") from None
    return copy.resolve()


def run_folder_outside(
    cwd: Path, workdir: Path, exclude: Sequence[str], project: tuple[Path, Path]
) -> tuple[Path | None, str]:
    """`verify ENTRY` started in `cwd`, outside ENTRY's project (`project`: its migrated copy,
    its root): the project's copy holds the migrated code, but both runs started in `cwd` at
    once (stop 57 s3, left (1)). The migrated run gets its own copy of `cwd`, as `verify
    ORIGINAL MIGRATED`'s does: (that copy, ""); where none can be made, (None, the note that
    the runs go one after the other)."""
    try:
        return copy_run_folder(cwd, workdir, exclude, project), ""
    except ProjectError as exc:
        return None, (
            f"both runs started in {cwd}, outside the project, one after the other: no copy "
            f"of it could be made for the migrated run ({exc})"
        )


@dataclass(frozen=True)
class MigratedProject:
    root: Path  # the user's project root
    copy: Path  # its copy
    entry: Path  # the migrated entry, inside the copy
    code: str  # the migrated entry's text
    files: tuple[str, ...]  # files the migration changed, relative to the root
    warnings: tuple[str, ...]  # `path:line:col: CODE message`, paths as in the user's tree
    copied: CopyPlan = field(default_factory=CopyPlan)


@contextlib.contextmanager
def _as_run_in_copy(cwd: Path, root: Path, copy: Path) -> Iterator[None]:
    """Migrate in the copy with the search path and working folder `dp2ddp migrate` would
    have there (program/search_path.environment_search reads both)."""
    before_cwd, before_path = Path.cwd(), os.environ.get("PYTHONPATH")
    if before_path:
        os.environ["PYTHONPATH"] = search_path_in_copy(before_path, cwd, root, copy)
    if cwd.resolve().is_relative_to(root):
        os.chdir(copy / cwd.resolve().relative_to(root))
    try:
        yield
    finally:
        os.chdir(before_cwd)
        if before_path is not None:
            os.environ["PYTHONPATH"] = before_path


def _shown(root: Path) -> str:
    """The project's root as the user's paths are printed: relative to the working folder
    when it is inside it (`.` itself), else absolute."""
    try:
        relative = root.relative_to(Path.cwd().resolve())
    except ValueError:
        return str(root)
    return str(relative)


def migrate_copy(
    entry: Path,
    workdir: Path,
    options: MigrateOptions,
    exclude: Sequence[str] = (),
    cwd: Path | None = None,
) -> MigratedProject:
    """Copy ENTRY's project into `workdir` and migrate ENTRY there as `dp2ddp migrate` does,
    run from `cwd` (the current folder) with the current PYTHONPATH, both moved into the copy."""
    entry = entry.resolve()
    root, found, why = program_roots(entry)
    copy = workdir / "project"
    try:
        copied = copy_project(root, copy, exclude=exclude, why=why)
    except OSError as exc:
        raise ProjectError(f"{root}: cannot copy the project: {exc}") from None
    copied_entry = copy / entry.relative_to(root)

    shown_root = _shown(root)

    def as_users(text: str) -> str:
        return text.replace(str(copy), shown_root)

    with _as_run_in_copy(cwd or Path.cwd(), root.resolve(), copy.resolve()):
        said = _migrate_in_place(copied_entry, options, copy / found.relative_to(root))
    outcomes = silence(said, options.ignore)  # as `dp2ddp migrate` reports them
    failed = [o for o in outcomes if o.status == "failed"]
    if failed:
        raise ProjectError(as_users(failed[0].error or f"{entry}: cannot migrate"))
    migrated = [o for o in outcomes if o.status == "migrated" and o.result is not None]
    if not migrated:
        raise ProjectError(_not_migrated(entry, said, as_users))
    # The warnings of every module of the program, those the migration left unchanged too
    # (a loss in a trainer module with no wrap of its own: DP043), so that a cause verify
    # names from them (causes.py) is found wherever the program has it.
    warnings = tuple(
        as_users(d.format(o.path))
        for o in fold_unreached(outcomes)  # DP034: one line for the modules left alone
        if o.result
        for d in o.result.diagnostics
    )
    code = decode(copied_entry.read_bytes()).text  # as migrate read it: a BOM, CRLF
    files = tuple(str(Path(o.path).resolve().relative_to(copy)) for o in migrated)
    return MigratedProject(root, copy, copied_entry, code, files, warnings, copied)


def original_warnings(entry: Path, options: MigrateOptions) -> tuple[str, ...]:
    """The warnings `dp2ddp migrate ENTRY` gives, for `verify ORIGINAL MIGRATED` as for
    `verify ORIGINAL`: the causes verify names from them (a wrap undone before training,
    DP062; a masked mean, DP043) are about the original's code, whoever migrated it. Only
    verify's own migration read them before, and luodhhh/ModernTCN@56a9a2c given as
    ORIGINAL MIGRATED read "no known cause" (stop 58). Migrated in memory, as `migrate
    --diff` does (nothing written); () where the original does not migrate."""
    from dp2ddp.program.folder import plan_paths

    try:
        plan = plan_paths([str(entry)], (), options, jobs=1)
    except (InputError, OSError, SyntaxError, ValueError, RecursionError):
        return ()
    return tuple(
        d.format(o.path)
        for o in fold_unreached(silence(plan.outcomes, options.ignore))
        if o.result
        for d in o.result.diagnostics
    )


def _not_migrated(
    entry: Path, outcomes: Sequence[FileOutcome], as_users: Callable[[str], str]
) -> str:
    """Why nothing was migrated, as migrate said it: a script migrate declined (DP003: it
    has its own DistributedDataParallel path; lemniscate.pytorch), whose DataParallel
    module it does not reach (DP034), or whose DataParallel is the program's own machinery
    (DP002), is not one without DataParallel."""
    declined = _said(outcomes, "DP003", as_users)
    if declined:
        return (
            f"{entry}: not migrated: migrate declined it ({declined[0]}; it leaves a program "
            "that has a DistributedDataParallel path of its own as it is), so nothing to verify"
        )
    # DataParallel in a module the program reaches only by a name known at run time
    # (`importlib.import_module(cfg["module"])`, haoxiangsnr/Wave-U-Net-for-Speech-
    # Enhancement: stop 39, v4-D): migrate left it and said so (DP034); "no DataParallel
    # found" would send the user looking for a wrap that is there.
    unreached = _said(fold_unreached(outcomes), "DP034", as_users)
    if unreached:
        return (
            f"{entry}: not migrated: its DataParallel is in a module the program does not "
            f"reach as migrate follows it ({unreached[0]}), so nothing to verify"
        )
    # DataParallel machinery of the program's own (a subclass, f90/Wave-U-Net-Pytorch's
    # `model_utils.DataParallel`; a functional `data_parallel`): migrate left it and said so
    # (DP002, "port them by hand"); "no DataParallel found" would deny what migrate named.
    own = _said(outcomes, "DP002", as_users)
    if own:
        return (
            f"{entry}: not migrated: its DataParallel is machinery migrate does not rewrite "
            f"({own[0]}; port it by hand, as migrate said), so nothing to verify"
        )
    return f"{entry}: nothing to migrate (no DataParallel found), so nothing to verify"


def _said(outcomes: Sequence[FileOutcome], code: str, as_users: Callable[[str], str]) -> list[str]:
    """Each warning of `code` migrate gave, as the user's `path:line:col: CODE message`."""
    return [
        as_users(d.format(o.path))
        for o in outcomes
        if o.result is not None
        for d in o.result.diagnostics
        if d.code == code
    ]
