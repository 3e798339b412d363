"""`dp2ddp migrate`: rewrite DataParallel scripts into torchrun-ready DDP scripts.

Output contract (a linter's, as ruff's): the data product (stdin mode's code, --diff) goes
to stdout; everything else to stderr, in this order: one line per failed or migrated file,
the warnings (`path:line:col: CODE message`), the summary line, then the launch command
(only when files were written: not with --check or --diff, so never in the pre-commit
hook). Errors are single `path:line:col: error: message` lines. --quiet hides the summary,
the progress and the notes, never the errors, the warnings or the files --check/--diff
would change. Exit codes: 0 done or nothing to do, 1 --check found work (a file to
migrate, or any warning left unsilenced, on migrated files too: migrate/markers.py),
2 an input error (the other files are still processed; a failed file is never modified).
--output-format json|github (commands/output_formats.py) prints the warnings on stdout as
data instead of on stderr. The options come from [tool.dp2ddp] and the command line
(commands/shared_options.py); silenced warnings are dropped first (migrate/suppress.py).
"""

from __future__ import annotations

import gc
import os
import re
import shlex
import stat
import sys
from collections.abc import Sequence
from dataclasses import replace

import click

from dp2ddp.commands.output_formats import FORMATS, github_lines, json_document
from dp2ddp.commands.progress import progress_bar
from dp2ddp.commands.shared_options import OptionFlags, migration_options, resolve
from dp2ddp.errors import InputError, error_line
from dp2ddp.launch.scripts import SINGLE_NODE_NPROC, default_launch_commands
from dp2ddp.migrate.atomic import is_stream, write_atomic, write_through
from dp2ddp.migrate.diffing import colorize, unified_diff
from dp2ddp.migrate.discovery import describe_os_error, discover
from dp2ddp.migrate.files import default_jobs, migrate_bytes, write_in_place
from dp2ddp.migrate.review import render_markdown
from dp2ddp.migrate.summary import EXIT_ERROR, Report, fold_unreached, is_new_file
from dp2ddp.migrate.suppress import silence
from dp2ddp.notebooks import SUFFIX as NOTEBOOK_SUFFIX
from dp2ddp.notebooks import is_notebook, notebook_outcome
from dp2ddp.options import MigrateOptions
from dp2ddp.result import FileOutcome, MigrationResult, Status
from dp2ddp.settings import Settings, SettingsError

STDIN = "-"
LAUNCH_HEADING = "Launch with torchrun (append the script's usual arguments):"
#: What `auto` means, and where the cluster's forms are.
LAUNCH_GPU_NOTE = (
    "  (auto: one process per GPU on a GPU machine, one per CPU core (gloo) without GPUs; "
    "--nproc_per_node=N sets the count; several nodes or Slurm: dp2ddp launch)"
)
STDIN_NAME = "<stdin>"
_MAIN_GUARD = re.compile(r"""__name__\s*==\s*['"]__main__['"]""")


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    help="Write the migrated code of the single input PATH to FILE (- for stdout) instead "
    "of in place; its helpers module beside FILE, or inline where FILE is a stream "
    "(-, /dev/stdout, /dev/null, a FIFO).",
)
@click.option("--diff", is_flag=True, help="Print a unified diff to stdout; write nothing.")
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 if any file would be migrated or any warning is left "
    "(migrated files too: their `# dp2ddp: DPxxx` markers); `# noqa: DPxxx` silences one.",
)
@click.option(
    "--exit-zero",
    is_flag=True,
    help="With --check: warnings are printed but do not fail; a file to migrate still does.",
)
@migration_options
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    metavar="N",
    help="Processes to migrate with (default: all cores).",
)
@click.option(
    "--exclude",
    multiple=True,
    metavar="GLOB",
    help="Skip files and folders matching GLOB when walking folders (repeatable).",
)
@click.option(
    "--report",
    "report_path",
    metavar="FILE",
    help="Write a Markdown review report of the run to FILE.",
)
@click.option(
    "--color/--no-color",
    default=None,
    help="Colour the --diff output (default: only on a terminal, and not when NO_COLOR is set).",
)
@click.option(
    "--output-format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="json: one document on stdout; github: GitHub Actions annotations on stdout "
    "(docs/ci.md). The warnings then go there instead of stderr.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Print only errors, warnings and the files --check/--diff would change (no "
    "summary, progress or launch line).",
)
@click.pass_context
def migrate(
    ctx: click.Context,
    paths: tuple[str, ...],
    output: str | None,
    diff: bool,
    check: bool,
    exit_zero: bool,
    flags: OptionFlags,
    jobs: int | None,
    exclude: tuple[str, ...],
    report_path: str | None,
    color: bool | None,
    output_format: str,
    quiet: bool,
) -> None:
    """Migrate DataParallel scripts in place into torchrun-ready DDP scripts.

    PATH is a file, a folder (searched for *.py) or - (stdin to stdout). Files without
    DataParallel are left byte for byte.

    \b
    Exit status: 0 done or nothing to do; 1 --check found files to migrate or warnings
    left (unless --exit-zero);
    2 a file could not be read, decoded or parsed (the others are still migrated),
    or the settings ([tool.dp2ddp] in pyproject.toml, see --config) are wrong.
    """
    if STDIN in paths and len(paths) > 1:
        raise click.UsageError("'-' (standard input) cannot be combined with other paths")
    if output is not None and len(paths) > 1:
        raise click.UsageError("-o/--output takes a single input PATH")
    if output is not None and (check or diff):
        raise click.UsageError("-o/--output cannot be combined with --check or --diff")
    _check_output_format(output_format, paths, output, diff)
    # A migration allocates millions of short-lived syntax nodes and keeps few: with
    # Python's default threshold (700) the collector ran ~600 times on a 53-file
    # monorepo, 6% of the run's CPU, finding little; one young collection per 100,000
    # allocations costs 1.5% (mypy raises its threshold for the same reason).
    gc.set_threshold(100_000, 50, 100)
    try:
        resolved = resolve(flags, paths)
    except SettingsError as exc:
        _err(exc.format())
        ctx.exit(EXIT_ERROR)
    options, settings = resolved.options, resolved.settings
    exclude = (*settings.exclude, *exclude)
    jobs = jobs or settings.jobs
    dry_run = check or diff
    launched: dict[str, str] | None = None  # the written files to launch, where not `written`
    entries: list[str] | None = None  # program mode: the torchrun targets of the entries
    try:
        if paths == (STDIN,):
            # No folder to put a helpers module in: the single-file form.
            inline = replace(options, inline_helpers=True)
            outcomes, written = _migrate_stdin(inline, output, dry_run)
        elif output == STDIN or (output is not None and is_stream(output)):
            # stdout, /dev/null, a FIFO: no folder to put the helpers module in beside it
            inline = replace(options, inline_helpers=True)
            outcomes, written = _migrate_to(paths[0], output, inline)
            launched = {}  # the stream is no script to launch
        elif output is not None:
            outcomes, written = _migrate_to(paths[0], output, options)
        else:
            outcomes, entries = migrate_paths(paths, exclude, options, jobs, dry_run, quiet)
            written = {} if dry_run else {o.path: o.path for o in outcomes}
    except KeyboardInterrupt:
        _err("Aborted: every file is either fully migrated or untouched.")
        ctx.exit(130)

    if any(o.result is not None and "dp2ddp:" in o.result.source for o in outcomes):
        from dp2ddp.migrate.markers import with_markers  # only then: the no-op path is instant

        outcomes = with_markers(outcomes)  # the warnings a migrated file's markers stand for
    outcomes = silence(outcomes, options.ignore)
    report = Report(check=dry_run, fail_on_change=check, exit_zero=exit_zero).add_all(outcomes)
    if diff:
        _print_diffs(outcomes, _use_color(color))
    launch = (
        [_torchrun(entry) for entry in entries]
        if entries is not None
        else _launch_commands(outcomes, written if launched is None else launched)
    )
    for outcome in outcomes:
        if outcome.status == "failed":
            _err(outcome.error or error_line(outcome.path, "failed"))
        elif outcome.status == "migrated" and (dry_run or not quiet):
            _err(_migrated_line(outcome, written.get(outcome.path), dry_run))
    if output_format == "text":
        _print_warnings(fold_unreached(outcomes))
    if not quiet:
        _err(str(report))
        if not dry_run:
            _print_launch(launch, options, report)
        _print_scaled_losses(outcomes)
    if output_format != "text":
        _print_machine_output(output_format, outcomes, report, written, launch, settings)
    code = report.return_code
    if report_path is not None and not _write_report(report_path, outcomes, options, launch):
        code = EXIT_ERROR
    ctx.exit(code)


# -- the three ways in --------------------------------------------------------------------
def migrate_paths(
    paths: Sequence[str],
    exclude: Sequence[str],
    options: MigrateOptions,
    jobs: int | None,
    dry_run: bool,
    quiet: bool,
) -> tuple[list[FileOutcome], list[str]]:
    """The core of `dp2ddp migrate PATH...` (also what `dp2ddp verify ENTRY` runs): files
    are entries, folders are searched for entries (dp2ddp/program/folder.py). Returns the
    outcomes and the torchrun targets of the migrated programs."""
    from dp2ddp.program.folder import plan_paths
    from dp2ddp.program.write import write_plan

    notebooks = _notebook_outcomes(paths, exclude)
    paths = [p for p in paths if not is_notebook(p) or os.path.isdir(p)]
    skipped: list[str] = []
    count = len(discover(paths, exclude, skipped=skipped))
    if skipped and not quiet:
        _err(_ignored_note(skipped))
    if not paths:
        return notebooks, []
    with progress_bar(sys.stderr, count, quiet) as advance:
        plan = plan_paths(
            paths,
            exclude,
            options,
            jobs=jobs or default_jobs(),
            sink=None if dry_run else write_in_place,
            progress=advance,
        )
    if not dry_run:
        write_plan(plan)
    return plan.outcomes + notebooks, plan.launch_targets()


def _notebook_outcomes(paths: Sequence[str], exclude: Sequence[str]) -> list[FileOutcome]:
    """The notebooks named or found in folders that use DataParallel (DP038; never
    rewritten), and the unreadable ones (dp2ddp/notebooks.py)."""
    named = [p for p in paths if is_notebook(p) and not os.path.isdir(p)]
    folders = [p for p in paths if os.path.isdir(p)]
    found = [t.path for t in discover(folders, exclude, suffix=NOTEBOOK_SUFFIX) if not t.error]
    outcomes = [notebook_outcome(path) for path in [*named, *found]]
    return [o for o in outcomes if o is not None]


def _ignored_note(skipped: Sequence[str]) -> str:
    """Folder mode leaves what .gitignore excludes alone (as git, ruff and black do)."""
    shown = ", ".join(skipped[:5]) + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
    return (
        f"Skipped {len(skipped)} .gitignore'd path{'s' if len(skipped) != 1 else ''}: {shown} "
        "(name a file to migrate it anyway)."
    )


def _migrate_stdin(
    options: MigrateOptions, output: str | None, dry_run: bool
) -> tuple[list[FileOutcome], dict[str, str]]:
    data = sys.stdin.buffer.read()
    outcome, new = migrate_bytes(STDIN_NAME, data, options)
    if outcome.status == "failed" or dry_run:
        return [outcome], {}
    return _write_output(outcome, new if new is not None else data, output or STDIN, None)


def _migrate_to(
    path: str, output: str, options: MigrateOptions
) -> tuple[list[FileOutcome], dict[str, str]]:
    """-o: read one file, write its migration (or an exact copy) to `output`, and the
    generated helpers module it imports beside `output` (a stream's options inline them)."""
    from dp2ddp.facts import GENERATED_MODULE
    from dp2ddp.transforms._support.runtime import module_for, read_generated

    if os.path.isdir(path):
        message = "is a directory; -o/--output needs a single file"
        return [FileOutcome(path, "failed", error=InputError(message).format(path))], {}
    (target,) = discover([path])
    if target.error is not None:
        return [FileOutcome(path, "failed", error=target.error)], {}
    from dp2ddp.program.folder import plan_paths

    generated = os.path.join(os.path.dirname(path), GENERATED_MODULE + ".py")
    changed = [
        p
        for p in plan_paths([path], (), options).changed_paths()
        if os.path.normpath(p) != os.path.normpath(generated)
    ]
    if len(changed) > 1:  # one output file cannot hold a program of several modules
        message = (
            f"-o/--output takes a single-file program; migrating this entry changes "
            f"{len(changed)} files ({', '.join(changed)}): migrate in place, or use --diff"
        )
        return [FileOutcome(path, "failed", error=InputError(message).format(path))], {}
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except OSError as exc:
        message = f"cannot read: {describe_os_error(exc)}"
        return [FileOutcome(path, "failed", error=InputError(message).format(path))], {}
    outcome, new = migrate_bytes(path, data, options)
    if outcome.status == "failed":
        return [outcome], {}
    helpers = outcome.result.helpers if outcome.result is not None else ()
    beside: list[FileOutcome] = []
    if outcome.result is not None and outcome.result.helpers_module:
        # The migrated script imports its helpers from _dp2ddp.py beside FILE.
        folder = os.path.dirname(output)
        module_path = os.path.join(folder, GENERATED_MODULE + ".py")
        try:
            existing = read_generated(module_path, module_path)
        except InputError as exc:
            return [FileOutcome(path, "failed", error=exc.format())], {}
        text = module_for(helpers, existing)
        status: Status = "unchanged" if text == existing.text else "migrated"
        result = MigrationResult(existing.text, text, helpers=helpers, generated=True)
        beside.append(FileOutcome(module_path, status, result))
        if status == "migrated":
            written, wrote = _write_output(beside[0], text.encode("utf-8"), module_path, None)
            if written[0].status == "failed":
                return written, {}
            beside = [*written]
    outcomes, wrote = _write_output(outcome, new if new is not None else data, output, mode)
    return [*outcomes, *beside], wrote  # the module is no script to launch


def _write_output(
    outcome: FileOutcome, data: bytes, output: str, mode: int | None
) -> tuple[list[FileOutcome], dict[str, str]]:
    if output == STDIN:  # `-o -`, or stdin mode without -o: the code is the data product
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return [outcome], {}
    try:
        if is_stream(output):  # /dev/stdout: the stream itself, never a file renamed over it
            write_through(output, data)
        else:
            write_atomic(output, data, new_file_mode=mode)
    except OSError as exc:
        message = f"cannot write: {describe_os_error(exc)}"
        error = InputError(message).format(output)
        return [FileOutcome(outcome.path, "failed", outcome.result, error)], {}
    return [outcome], {outcome.path: output}


# -- --output-format json|github --------------------------------------------------------------
def _check_output_format(
    output_format: str, paths: Sequence[str], output: str | None, diff: bool
) -> None:
    """json and github print on stdout, so nothing else may (the diff, code to stdout)."""
    if output_format == "text":
        return
    if diff:
        raise click.UsageError(f"--output-format {output_format} cannot be combined with --diff")
    if output == STDIN or (paths == (STDIN,) and output is None):
        raise click.UsageError(
            f"--output-format {output_format} prints on stdout: write the code to a file "
            "with -o FILE"
        )


def _print_machine_output(
    output_format: str,
    outcomes: Sequence[FileOutcome],
    report: Report,
    written: dict[str, str],
    launch: Sequence[str],
    settings: Settings,
) -> None:
    if output_format == "json":
        document = json_document(
            outcomes, report, written=written, launch=launch, settings=settings.path
        )
        click.echo(document)
    else:
        for line in github_lines(outcomes, report):
            click.echo(line)


# -- what is printed ------------------------------------------------------------------------
def _err(message: str) -> None:
    click.echo(message, err=True)


def _migrated_line(outcome: FileOutcome, written_to: str | None, dry_run: bool) -> str:
    """`migrated PATH`, or `created PATH` for a file the migration adds (a generated helpers
    module: its outcome's source is empty); `would ...` when nothing is written."""
    path = outcome.path
    verb = "create" if is_new_file(outcome) else "migrate"
    if dry_run:
        return f"would {verb} {path}"
    done = "created" if verb == "create" else "migrated"
    if written_to is not None and written_to != path:
        return f"{done} {path} -> {written_to}"
    return f"{done} {path}"


def _use_color(color: bool | None) -> bool | None:
    """--color/--no-color win; else no colour when NO_COLOR is set (no-color.org), else
    click's choice (a terminal)."""
    if color is None and os.environ.get("NO_COLOR"):
        return False
    return color


def _print_diffs(outcomes: Sequence[FileOutcome], color: bool | None) -> None:
    for outcome in outcomes:
        if outcome.status != "migrated" or outcome.result is None:
            continue
        text = unified_diff(outcome.result.source, outcome.result.code, outcome.path)
        click.echo(colorize(text), nl=False, color=color)


def _print_warnings(outcomes: Sequence[FileOutcome]) -> None:
    for outcome in outcomes:
        if outcome.status != "failed" and outcome.result is not None:
            for diagnostic in outcome.result.diagnostics:
                _err(diagnostic.format(outcome.path))


def _launch_commands(outcomes: Sequence[FileOutcome], written: dict[str, str]) -> list[str]:
    """torchrun commands for the migrated entry points (files with a __main__ guard if any)."""
    scripts = [
        (written[o.path], o.result.code)
        for o in outcomes
        if o.status == "migrated" and o.result is not None and o.path in written
    ]
    entry_points = [path for path, code in scripts if _MAIN_GUARD.search(code)]
    return [_torchrun(path) for path in entry_points or [path for path, _ in scripts]]


def _torchrun(script: str) -> str:
    """The same single-node line `dp2ddp launch` and the report use: `--nproc_per_node=auto`,
    so that it runs where it is printed (torchrun's `gpu` raises without CUDA)."""
    start = f"torchrun --standalone --nproc_per_node={SINGLE_NODE_NPROC}"
    if script.startswith("-m "):  # an entry run as a module of a package
        return f"{start} -m {shlex.quote(script[3:])}"
    try:
        return default_launch_commands([script])[0]
    except ValueError:  # a path torchrun cannot take
        return f"{start} {shlex.quote(script)}"


def _print_launch(launch: Sequence[str], options: MigrateOptions, report: Report) -> None:
    if launch:
        _err(LAUNCH_HEADING)
        shown = launch[:10]
        for command in shown:
            _err(f"  {command}")
        if len(launch) > len(shown):
            _err(f"  ... and {len(launch) - len(shown)} more")
        _err(LAUNCH_GPU_NOTE)
    if options.per_process_batch and report.migrated:
        _err(
            "note: --per-process-batch: each DataLoader's batch_size is now the batch of one "
            "process, so the global batch is batch_size x the number of processes "
            "(scale the learning rate accordingly)."
        )


def _print_scaled_losses(outcomes: Sequence[FileOutcome]) -> None:
    """Say where the gradients' scale changed on purpose (a summed loss times WORLD_SIZE)."""
    if not any(o.result is not None and o.result.changed for o in outcomes):
        return  # and the passes (libcst) stay unloaded: a no-op run is instant
    from dp2ddp.transforms._support.names import SCALED_LOSS

    scaled = [
        f"{outcome.path}:{change.line}"
        for outcome in outcomes
        if outcome.result is not None and outcome.result.changed
        for change in outcome.result.changes
        if change.description.startswith(SCALED_LOSS)
    ]
    if scaled:
        _err(
            f"note: summed loss multiplied by WORLD_SIZE for backward at {', '.join(scaled)} "
            "(DDP averages gradients over the processes); --keep-summed-loss leaves it as written."
        )


def _write_report(
    path: str, outcomes: Sequence[FileOutcome], options: MigrateOptions, launch: Sequence[str]
) -> bool:
    text = render_markdown(outcomes, options, launch)
    try:
        write_atomic(path, text.encode("utf-8"))
    except OSError as exc:
        _err(InputError(f"cannot write the report: {describe_os_error(exc)}").format(path))
        return False
    return True
