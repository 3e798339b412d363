"""`verify(config)`: plan the two runs, launch them, read their records, judge.

Everything the runs write lives in one temporary directory that is removed at the end,
also after a failure or a timeout; the user's scripts are only read.
"""

from __future__ import annotations

import dataclasses
import glob
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dp2ddp.errors import InputError, error_line
from dp2ddp.migrate.sourcefile import decode
from dp2ddp.transforms.shared_draws import unshared_draws
from dp2ddp.verify import end_checks, hang, launch, own_rngs, protocol, scan
from dp2ddp.verify.chunks import replica_chunks
from dp2ddp.verify.config import VerifyConfig
from dp2ddp.verify.datasets import dataset_mismatch
from dp2ddp.verify.failures import RunFailures, deliberate_exits, exit_aborts
from dp2ddp.verify.float_verdict import (
    REPLACEABLE,
    float_order_cause,
    other_optimizer_cause,
    within_floor,
)
from dp2ddp.verify.in_copy import in_migrated_copy, migrated_cwd, migrated_environ
from dp2ddp.verify.proctree import ProcessTree
from dp2ddp.verify.reach import Reached
from dp2ddp.verify.records import RankRecord, load_rank, load_run, same_parameters
from dp2ddp.verify.report import (
    EQUIVALENT,
    EXIT_EQUIVALENT,
    EXIT_FAILED,
    EXIT_NOT_EQUIVALENT,
    FAILED,
    NOT_COMPARABLE,
    NOT_EQUIVALENT,
    ParamRow,
    VerifyReport,
)
from dp2ddp.verify.sharding import UNRECORDED, check_sharding

if TYPE_CHECKING:
    from dp2ddp.verify.compare import Numerics


class VerifyError(Exception):
    """Nothing could be run (bad arguments, unreadable or unmigratable script): exit 2."""


@dataclass(frozen=True)
class Plan:
    nproc: int
    backend: str  # "gloo" | "nccl"
    cuda_visible: str | None  # CUDA_VISIBLE_DEVICES for both runs (None: inherit)


@dataclass(frozen=True)
class Scripts:
    original: Path
    migrated: Path  # the file the migrated run executes
    migrated_file_attr: Path  # its __file__
    migrated_label: str
    original_source: str
    migrated_source: str
    notes: tuple[str, ...] = ()
    #: ENTRY migrated in a copy of its project: (the copy, the user's project root)
    copy: tuple[Path, Path] | None = None
    #: The migration's warnings, `path:line:col: CODE message` (when verify migrated).
    warnings: tuple[str, ...] = ()
    #: `copy` is only the working folder's copy (MIGRATED was given, not migrated by verify).
    run_folder: bool = False
    #: Both runs start in one folder (it could not be copied): they go one after the other.
    shared_folder: bool = False
    #: `verify ENTRY` started outside ENTRY's project: (the copy of the folder it started
    #: in, where the migrated run starts; that folder)
    run_copy: tuple[Path, Path] | None = None

    @property
    def copies(self) -> tuple[tuple[Path, Path], ...]:
        """(copy, the user's folder) of each folder the migrated run has its own copy of."""
        return tuple(c for c in (self.copy, self.run_copy) if c is not None)

    def as_users(self, text: str) -> str:
        """A text of the migrated run with the copy's paths written as the user's."""
        for copy, root in self.copies:
            text = text.replace(str(copy), str(root))
        return text

    def in_migrated(self, path: str) -> str:
        """A path of the original run at its place in the migrated run's copies."""
        for copy in self.copies:
            moved = in_migrated_copy(path, copy)
            if moved != path:
                return moved
        return path

    def display(self, path: str) -> str:
        """A path in a report: relative to the project (copy) or to the current folder."""
        resolved = Path(path)
        for copy, _ in self.copies:
            if resolved.is_relative_to(copy):  # the migrated code's lines: `migrate --diff`
                return str(resolved.relative_to(copy))
        for folder in (Path.cwd(), self.original.resolve().parent):
            if resolved.resolve().is_relative_to(folder):
                return str(resolved.resolve().relative_to(folder))
        return path


def _cuda_devices() -> int:
    """GPUs torch would use. Without a GPU device node (Linux) there are none, and the harness
    need not import torch before it starts the runs (seconds on a busy machine)."""
    if sys.platform.startswith("linux") and not (
        glob.glob("/dev/nvidia[0-9]*") or os.path.exists("/dev/kfd")
    ):
        return 0
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def plan(config: VerifyConfig) -> Plan:
    """World size, backend and visible devices (one process per GPU for NCCL)."""
    gpus = _cuda_devices()
    backend = config.backend
    if backend == "auto":
        backend = "nccl" if gpus else "gloo"
    if backend == "nccl" and not gpus:
        raise VerifyError("--backend nccl needs CUDA GPUs, and none is visible")
    nproc = config.nproc if config.nproc is not None else (gpus if backend == "nccl" else 2)
    if nproc < 1:
        raise VerifyError("--nproc must be at least 1")
    if backend == "nccl" and nproc > gpus:
        raise VerifyError(
            f"--nproc {nproc} needs {nproc} GPUs with nccl (one process per GPU); "
            f"{gpus} visible. Use --backend gloo to check on CPU."
        )
    if config.steps < 1:
        raise VerifyError("--steps must be at least 1")
    if backend == "nccl":
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        devices = visible.split(",") if visible else [str(i) for i in range(gpus)]
        return Plan(nproc, backend, ",".join(devices[:nproc]))
    return Plan(nproc, backend, "" if gpus else None)  # gloo: hide GPUs, both runs on CPU


def _read(path: Path) -> str:
    """The text of a source file as `dp2ddp migrate` reads it (migrate.sourcefile: a UTF-8
    BOM, an encoding cookie, CRLF endings), so a script migrate accepts verify accepts too
    (paper99/srfbn_cvpr19@046f693's train.py starts with a BOM: "cannot parse" before)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise VerifyError(f"{path}: cannot read: {exc}") from None
    try:
        return decode(data).text
    except InputError as exc:
        raise VerifyError(exc.format(str(path))) from None


def prepare_scripts(config: VerifyConfig, workdir: Path) -> Scripts:
    """The migrated script: the user's MIGRATED, or ORIGINAL's project copied into `workdir`
    and migrated there as `dp2ddp migrate ORIGINAL` would."""
    original_source = _read(config.original)
    if config.migrated is not None:
        return _given_migration(config, workdir, original_source, config.migrated)
    try:
        compile(original_source, str(config.original), "exec", dont_inherit=True)
    except SyntaxError as exc:
        line, col = exc.lineno or 1, exc.offset or 1
        raise VerifyError(
            error_line(str(config.original), f"cannot parse: {exc.msg}", line, col)
        ) from None
    from dp2ddp.verify.project import ProjectError, migrate_copy  # libcst: only needed here

    try:
        project = migrate_copy(
            config.original, workdir, config.migrate_options, config.exclude, config.cwd
        )
    except ProjectError as exc:
        raise VerifyError(str(exc)) from None
    notes = tuple(f"migration warning: {w}" for w in project.warnings)
    if project.copied.linked:
        notes += (
            f"{project.copied.linked} .gitignore'd or --exclude'd files "
            f"({project.copied.linked_bytes / 2**20:,.1f} MiB) were linked into the copy from "
            "your project, not copied",
        )
    if len(project.files) > 1:
        notes += (f"migrated {len(project.files)} files: {', '.join(project.files)}",)
    scripts = Scripts(
        config.original,
        project.entry,
        project.entry,
        f"{config.original} (migrated in a temporary copy of {project.root})",
        original_source,
        project.code,
        notes,
        copy=(project.copy, project.root),
        warnings=project.warnings,
    )
    return _outside_project(config, workdir, scripts)


def _outside_project(config: VerifyConfig, workdir: Path, scripts: Scripts) -> Scripts:
    """`verify ENTRY` started outside ENTRY's project: the migrated run's own copy of that
    folder (project.run_folder_outside), or a note that the runs go one after the other."""
    from dp2ddp.verify.project import run_folder_outside  # only needed here

    cwd = (config.cwd or Path.cwd()).resolve()
    if scripts.copy is None or cwd.is_relative_to(scripts.copy[1].resolve()):
        return scripts
    folder, note = run_folder_outside(cwd, workdir, config.exclude, scripts.copy)
    if folder is None:
        return dataclasses.replace(scripts, shared_folder=True, notes=scripts.notes + (note,))
    return dataclasses.replace(scripts, run_copy=(folder, cwd))


def _given_migration(
    config: VerifyConfig, workdir: Path, original_source: str, migrated: Path
) -> Scripts:
    """MIGRATED as given, to run in its own copy of the working folder (copy_run_folder):
    the script too where it lies in that folder, so that `__file__`-relative paths are the
    copy's; where no copy can be made, both run in the folder, one after the other."""
    from dp2ddp.verify.project import ProjectError, copy_run_folder, original_warnings

    given = Scripts(
        config.original,
        migrated,
        migrated,
        str(migrated),
        original_source,
        _read(migrated),
        warnings=original_warnings(config.original, config.migrate_options),
    )
    cwd = (config.cwd or Path.cwd()).resolve()
    try:
        folder = copy_run_folder(cwd, workdir, config.exclude)
    except ProjectError as exc:
        return dataclasses.replace(
            given,
            shared_folder=True,
            notes=(
                f"both runs started in {cwd}, one after the other: no copy of it could be "
                f"made for the migrated run ({exc})",
            ),
        )
    script = migrated.resolve()
    if script.is_relative_to(cwd):
        script = folder / script.relative_to(cwd)
    return dataclasses.replace(
        given, migrated=script, migrated_file_attr=script, copy=(folder, cwd), run_folder=True
    )


def verify(config: VerifyConfig) -> VerifyReport:
    """Run both scripts and compare them. Raises VerifyError when nothing could be run."""
    the_plan = plan(config)
    tell = config.progress or (lambda message: None)
    try:
        with tempfile.TemporaryDirectory(prefix="dp2ddp-verify-", dir=config.temp_root) as tmp:
            workdir = Path(tmp)
            if config.migrated is None:
                tell(f"copying {config.original}'s project and migrating it in the copy")
            scripts = prepare_scripts(config, workdir)
            alive: dict[str, dict[int, bool]] = {}
            results = _launch(config, the_plan, scripts, workdir, alive)
            tell("comparing the runs")
            return judge(config, the_plan, scripts, workdir, results, alive)
    except OSError as exc:  # no temporary directory, cannot start python, disk full...
        raise VerifyError(f"cannot run: {exc}") from None


def run_specs(
    config: VerifyConfig, the_plan: Plan, scripts: Scripts, workdir: Path
) -> list[launch.RunSpec]:
    """The original's run and the migration's launch, each writing its records under workdir."""
    env = launch.run_env(os.environ, the_plan.cuda_visible, the_plan.backend == "gloo")
    cwd = config.cwd or Path.cwd()
    migrated_env = launch.run_env(
        migrated_environ(cwd, scripts.copy), the_plan.cuda_visible, the_plan.backend == "gloo"
    )
    chunks = replica_chunks(config, the_plan.backend, the_plan.nproc, scripts.migrated_source)
    original = protocol.RunnerOptions(
        out=str(workdir / launch.ORIGINAL),
        steps=config.steps,
        seed=config.seed,
        file_attr=str(scripts.original.resolve()),
        no_dropout=config.no_dropout,
        freeze_batchnorm=config.freeze_batchnorm,
        # --per-process-batch: the original runs the migration's global batch
        scale_batch=the_plan.nproc if config.migrate_options.per_process_batch else 1,
        to_end=config.to_end,
        batchnorm_chunks=chunks.batchnorm,
        norm_chunks=chunks.norms,
        dropout_chunks=chunks.dropout,
        keep_dropout=config.keep_dropout,
    )
    migrated = dataclasses.replace(
        original,
        out=str(workdir / launch.MIGRATED),
        file_attr=str(scripts.migrated_file_attr.resolve()),
        scale_batch=1,
        batchnorm_chunks=1,
        norm_chunks=1,
        dropout_chunks=min(chunks.dropout, 1),
    )
    return [
        launch.RunSpec(
            launch.ORIGINAL,
            launch.original_argv(original, scripts.original.resolve(), config.script_args),
            env, cwd, workdir / "original.log", config.timeout,
        ),
        launch.RunSpec(
            launch.MIGRATED,
            launch.torchrun_argv(
                migrated, scripts.migrated.resolve(), config.script_args, the_plan.nproc
            ),
            migrated_env,
            scripts.run_copy[0] if scripts.run_copy else migrated_cwd(cwd, scripts.copy),
            workdir / "migrated.log", config.timeout,
        ),
    ]  # fmt: skip


def _launch(
    config: VerifyConfig,
    the_plan: Plan,
    scripts: Scripts,
    workdir: Path,
    alive: dict[str, dict[int, bool]],
) -> dict[str, launch.RunResult]:
    specs = run_specs(config, the_plan, scripts, workdir)

    def world(name: str) -> int:
        return the_plan.nproc if name == launch.MIGRATED else 1

    def cancel_others(result: launch.RunResult) -> bool:
        records = load_run(workdir / result.name, world(result.name))
        if (
            not result.ok
            and not exit_aborts(result, records)
            # a status the script chose (a restart protocol): the other run may choose it too
            and deliberate_exits(records) is None
        ):
            return True
        record = load_rank(workdir / result.name / protocol.rank_dir_name(0), 0)
        return record.status == protocol.FINISHED and not record.events

    def complete(spec: launch.RunSpec) -> bool:
        if config.to_end:  # every process must end by itself
            return False
        return all(
            saved(workdir / spec.name / protocol.rank_dir_name(rank))
            for rank in range(world(spec.name))
        )

    def on_timeout(spec: launch.RunSpec, tree: ProcessTree) -> None:
        alive[spec.name] = hang.request_stacks(workdir / spec.name, world(spec.name), tree)

    watch = _Progress(config, the_plan, workdir)
    concurrent = the_plan.backend == "gloo" and not scripts.shared_folder
    return launch.run_all(specs, concurrent, cancel_others, complete, on_timeout, watch)


class _Progress:
    """Tells `config.progress` which run started, the steps each reached, and which ended:
    a long run does not look hung. Reads rank 0's progress file about once a second."""

    def __init__(self, config: VerifyConfig, the_plan: Plan, workdir: Path) -> None:
        self.tell = config.progress
        self.config = config
        self.plan = the_plan
        self.workdir = workdir
        self.seen: dict[str, int] = {}
        self.last: dict[str, float] = {}

    def __call__(self, event: str, name: str) -> None:
        if self.tell is None:
            return
        who = (
            f"the migration (torchrun, {self.plan.nproc} processes, {self.plan.backend})"
            if name == launch.MIGRATED
            else "the original (1 process)"
        )
        if event == "started":
            self.tell(f"running {who}")
        elif event == "ended":
            self.last[name] = 0.0  # the steps it reached last, then its end
            self._steps(name)
            self.tell(f"{who.split(' (')[0]} ended")
        elif event == "poll":
            self._steps(name)

    def _steps(self, name: str) -> None:
        if self.tell is None:
            return
        now = time.monotonic()
        if now - self.last.get(name, 0.0) < 1.0:
            return
        self.last[name] = now
        try:
            progress = json.loads(
                (self.workdir / name / protocol.rank_dir_name(0) / protocol.PROGRESS).read_text()
            )
            steps = int(progress.get("steps", 0))
        except (OSError, ValueError, AttributeError, TypeError):
            return
        if steps and self.seen.get(name, 0) != steps:
            label = "migration" if name == launch.MIGRATED else "original"
            self.tell(f"{label}: optimizer step {steps} of {self.config.steps} recorded")
        self.seen[name] = steps


def saved(rank_dir: Path) -> bool:
    """The rank stopped at the requested step and saved everything."""
    try:
        progress = json.loads((rank_dir / protocol.PROGRESS).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(progress, dict) and progress.get("status") == protocol.STOPPED


def judge(
    config: VerifyConfig,
    the_plan: Plan,
    scripts: Scripts,
    workdir: Path,
    results: dict[str, launch.RunResult],
    alive: dict[str, dict[int, bool]],
) -> VerifyReport:
    from dp2ddp.verify.causes import Evidence, diagnose, nonfinite_cause
    from dp2ddp.verify.compare import compare_updates, nonfinite, rank_sync

    original = load_rank(workdir / launch.ORIGINAL / protocol.rank_dir_name(0), 0)
    ranks = load_run(workdir / launch.MIGRATED, the_plan.nproc)
    head = VerifyReport(
        verdict=FAILED,
        exit_code=EXIT_FAILED,
        original=str(config.original),
        migrated=scripts.migrated_label,
        world_size=the_plan.nproc,
        backend=the_plan.backend,
        steps_requested=config.steps,
        rtol=config.rtol,
        atol=config.atol,
        notes=scripts.notes,
        seconds={name: round(r.seconds, 2) for name, r in results.items()},
    )
    judge = RunFailures(config, scripts, workdir, alive)
    failures = judge.collect(results, original, ranks)
    if failures:
        return dataclasses.replace(
            head,
            verdict=judge.verdict(),
            failures=tuple(failures),
            causes=tuple(judge.causes),
            notes=head.notes + tuple(judge.notes),
        )

    aliases = same_parameters(original, ranks[0])
    renamed: tuple[str, ...] = ()
    if aliases:
        for record in ranks:
            record.aliases = aliases
        first = next(iter(aliases))
        renamed = (
            f"the runs named {len(aliases)} parameters from other modules (the original "
            f"{original.names().get(aliases[first], aliases[first])}, the migration "
            f"{ranks[0].data.get('names', {}).get(first, first)}, ...): the same parameters "
            "by their order in the optimizer, shapes and identical initial values, compared "
            "as such (an original that calls its model's forward() itself is seen as its parts)",
        )
        head = dataclasses.replace(head, notes=head.notes + renamed)
    numerics = compare_updates(original, ranks[0], config.rtol, config.atol)
    diverged = nonfinite(original.events, ranks[0].events, numerics.first_diverging_step)
    if len(original.events) != len(ranks[0].events) and diverged is None:
        numerics.structure.append(
            f"the original made {len(original.events)} optimizer steps, the migration "
            f"{len(ranks[0].events)} (a script ended before --steps {config.steps})"
        )
    written = scan.wrap_dims(scripts.original_source)  # a wrap the run did not build
    sharding = check_sharding(original, ranks, numerics.steps_compared, written)
    in_sync, sync_detail = rank_sync(ranks, numerics.steps_compared)
    datasets_differ = dataset_mismatch(ranks)
    reached = Reached(original)  # causes from code: only code the original ran (reach.py)
    said = reached.warnings(scripts.warnings)
    evidence = Evidence(
        world=the_plan.nproc,
        numerics=numerics,
        sharding=sharding,
        in_sync=in_sync,
        sync_detail=sync_detail,
        original=original,
        migrated=ranks,
        findings_original=scan.scan(scripts.original_source),
        findings_migrated=scan.scan(scripts.migrated_source),
        no_dropout=config.no_dropout,
        freeze_batchnorm=config.freeze_batchnorm,
        migration_warnings=said,
        unreached_warnings=tuple(w for w in scripts.warnings if w not in said),
        datasets_differ=datasets_differ,
        dataset_draws=tuple(unshared_draws(scripts.migrated_source)) if datasets_differ else (),
        pair_losses=reached.pair_losses(scan.pair_losses(config.original), said)
        if not numerics.passed
        else (),
        mean_losses=tuple(
            filter(reached.ran_at, scan.mean_losses(config.original, scripts.warnings))
        )
        if not numerics.passed
        else (),
        forward_draws=tuple(filter(reached.ran_at, scan.forward_draws(config.original)))
        if not numerics.passed
        else (),
    )
    if diverged is None:
        causes = diagnose(evidence)
    elif diverged.comparable_failure:
        causes = [nonfinite_cause(diverged)]
    else:
        found = [c for c in diagnose(evidence) if c.key != "unexplained"]
        causes = [nonfinite_cause(diverged), *found]
    equivalent = (
        numerics.passed
        and not sharding.failed
        and in_sync
        and diverged is None
        and datasets_differ is None
    )
    floor = (
        within_floor(numerics, original.data.get("float_floor"))
        if not equivalent
        and not sharding.failed
        and in_sync
        and diverged is None
        and datasets_differ is None
        and all(c.key in REPLACEABLE for c in causes)
        else None
    )
    if floor is not None:  # step 1 within the measured float-order floor: said, not proved
        causes = [float_order_cause(floor)]
    elif not equivalent and diverged is None:  # after a cause a warning names, it is added
        apart = other_optimizer_cause(numerics, config.rtol, scripts.display)
        if apart is not None:
            causes = [apart] if all(c.key in REPLACEABLE for c in causes) else [*causes, apart]
    to_end: dict[str, str] = {}
    distance: tuple[float, str] | None = None
    if config.to_end:  # reported whatever the step comparison found
        stopped = [
            "the original" if r is original else f"rank {r.rank}"
            for r in (original, *ranks)
            if r.status == protocol.STOPPED
        ]
        if stopped:
            to_end = {
                "checks": f"not run: {', '.join(stopped)} stopped at the first non-finite "
                "step, before the end of the script"
            }
        else:
            to_end, end_causes, end_notes, distance = end_checks.to_end_rows(
                config, scripts, workdir, results, original, ranks
            )
            causes += end_causes
            head = dataclasses.replace(head, notes=head.notes + tuple(end_notes))
            equivalent = equivalent and not end_causes
    if diverged is not None and diverged.comparable_failure:
        verdict, code = NOT_COMPARABLE, EXIT_FAILED
    elif equivalent and sharding.status == UNRECORDED:  # the updates agree, the data unseen
        verdict, code = NOT_COMPARABLE, EXIT_FAILED
    elif equivalent and numerics.below_resolution:  # no update above rounding: compare.py
        verdict, code = NOT_COMPARABLE, EXIT_FAILED
    elif equivalent:
        verdict, code = EQUIVALENT, EXIT_EQUIVALENT
    else:
        verdict, code = NOT_EQUIVALENT, EXIT_NOT_EQUIVALENT
    return dataclasses.replace(
        head,
        verdict=verdict,
        exit_code=code,
        steps_compared=numerics.steps_compared,
        optimizers=len({e["optimizer"] for e in original.events}) or 1,
        initial_weights=_initial(numerics),
        ranks_in_sync=("yes: " if in_sync else "NO: ") + sync_detail,
        sharding_status=sharding.status,
        sharding=sharding.describe(),
        first_diverging_step=numerics.first_diverging_step,
        worst_parameters=tuple(
            ParamRow(d.name, d.shape, d.step, d.rel_error, d.max_abs_diff, d.passed)
            for d in numerics.worst()
        ),
        causes=tuple(causes),
        notes=head.notes + tuple(_notes(config, original, ranks)) + _rounding_notes(numerics),
        to_end=to_end,
        scope=end_checks.compared_scope(config, numerics.steps_compared, original, distance)
        if verdict == EQUIVALENT
        else "",
    )


def _initial(numerics: Numerics) -> str:
    if numerics.initial_equal:
        return "identical"
    return f"differ: {numerics.initial_worst} by up to {numerics.initial_max_abs_diff:.3g}"


def _rounding_notes(numerics: Numerics) -> tuple[str, ...]:
    from dp2ddp.verify.compare import rounding_note

    note = rounding_note(numerics)
    return (note,) if note else ()


def _notes(config: VerifyConfig, original: RankRecord, ranks: list[RankRecord]) -> list[str]:
    notes = []
    if original.status == protocol.FINISHED and len(original.events) < config.steps:
        notes.append(
            f"the original ended after {len(original.events)} of {config.steps} requested steps"
        )
    unaligned = {
        s.get("kind") for r in (original, *ranks) for s in r.data.get("samplers", [])
        if not s.get("aligned")
    }  # fmt: skip
    if unaligned:
        notes.append(
            f"sampler order not aligned ({', '.join(sorted(map(str, unaligned)))}: "
            "replacement or num_samples)"
        )
    seeded = [
        own for loader in original.data.get("loaders", []) for own in loader.get("own_rngs", [])
        if own.get("seedable")
    ]  # fmt: skip
    if seeded:
        notes.append(
            "the dataset's own generators were seeded per sample in both runs, as the global "
            f"ones: {own_rngs.describe(seeded)}"
        )
    notes += _replica_notes(config, original, ranks)
    if config.migrate_options.per_process_batch:
        notes.append(
            "--per-process-batch: the original's DataLoader batch sizes were multiplied by "
            f"{len(ranks)} to match the migration's global batch"
        )
    return notes


def _window_sum(record: RankRecord, key: str) -> int:
    return sum(int(w.get(key, 0)) for w in record.data.get("windows", []))


def _replica_notes(
    config: VerifyConfig, original: RankRecord, ranks: list[RankRecord]
) -> list[str]:
    """What the original did to run as DataParallel on W devices, and what was switched off."""
    notes = []
    w = len(ranks)
    if config.no_dropout:
        notes.append("dropout was switched off in both runs for this check (--no-dropout)")
    if config.freeze_batchnorm:
        notes.append("BatchNorm used running statistics in both runs for this check")
    chunked = _window_sum(original, "batchnorm_chunked")
    if chunked:
        notes.append(
            f"BatchNorm: the original normalised each batch in {w} chunks as DataParallel on "
            f"{w} devices does ({chunked} calls; running statistics from the first chunk)"
        )
    whole = [s for w in original.data.get("windows", []) for s in w.get("batchnorm_whole", [])]
    if whole:
        notes.append(
            f"BatchNorm: {len(whole)} training calls (input {whole[0]}) were normalised over "
            f"their whole batch, not in {w} chunks: a chunk would hold one value per channel, "
            "which BatchNorm cannot normalise (a forward DataParallel does not scatter, e.g. a "
            "dummy batch before the wrap)"
        )
    replicated = _window_sum(original, "replicated")
    if replicated:
        notes.append(
            f"the original ran {replicated} training forwards of its model chunk by chunk, as "
            f"DataParallel's {w} replicas do (each layer over its chunk, as on the ranks)"
        )
    aligned = _window_sum(original, "dropout_aligned")
    off = max(_window_sum(r, "dropout_off") for r in (original, *ranks))
    if aligned:
        notes.append(
            f"dropout: {aligned} calls drew each chunk's mask as rank r draws it (aligned)"
        )
    if off:
        notes.append(
            f"dropout: {off} calls could not be aligned with the ranks (input not batch-first, "
            "a batch that does not split evenly, or attention dropout) and were switched off "
            "in both runs for this check; --keep-dropout keeps them (the updates then differ)"
        )
    return notes
