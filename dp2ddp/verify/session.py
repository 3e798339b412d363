"""`verify(config)`: plan the two runs, launch them, read their records, judge.

Everything the runs write lives in one temporary directory that is removed at the end,
also after a failure or a timeout; the user's scripts are only read.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dp2ddp.errors import InputError
from dp2ddp.verify import launch, protocol, scan
from dp2ddp.verify.causes import Evidence, diagnose
from dp2ddp.verify.compare import Numerics, compare_updates, rank_sync
from dp2ddp.verify.config import VerifyConfig
from dp2ddp.verify.records import RankRecord, load_rank, load_run
from dp2ddp.verify.report import (
    EQUIVALENT,
    EXIT_EQUIVALENT,
    EXIT_FAILED,
    EXIT_NOT_EQUIVALENT,
    FAILED,
    NOT_EQUIVALENT,
    Failure,
    ParamRow,
    VerifyReport,
)
from dp2ddp.verify.sharding import check_sharding


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
    migrated_file_attr: Path  # its __file__ (the original's path for an in-memory migration)
    migrated_label: str
    original_source: str
    migrated_source: str
    notes: tuple[str, ...] = ()


def plan(config: VerifyConfig) -> Plan:
    """World size, backend and visible devices (one process per GPU for NCCL)."""
    import torch

    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
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
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise VerifyError(f"{path}: cannot read: {exc}") from None


def prepare_scripts(config: VerifyConfig, workdir: Path) -> Scripts:
    """The migrated script: the user's MIGRATED, or ORIGINAL migrated into `workdir`."""
    original_source = _read(config.original)
    if config.migrated is not None:
        return Scripts(
            config.original,
            config.migrated,
            config.migrated,
            str(config.migrated),
            original_source,
            _read(config.migrated),
        )
    from dp2ddp.migrate.migrate_source import migrate_source  # libcst: only needed here

    try:
        result = migrate_source(
            original_source, config.migrate_options, filename=str(config.original)
        )
    except InputError as exc:
        raise VerifyError(exc.format(str(config.original))) from None
    if not result.changed:
        raise VerifyError(
            f"{config.original}: nothing to migrate (no DataParallel found), so nothing to verify"
        )
    target = workdir / "script" / config.original.name
    target.parent.mkdir()
    target.write_text(result.code, encoding="utf-8")
    notes = tuple(
        f"migration warning: {d.format(str(config.original))}" for d in result.diagnostics
    )
    return Scripts(
        config.original,
        target,
        config.original,
        f"{config.original} (migrated in memory)",
        original_source,
        result.code,
        notes,
    )


def verify(config: VerifyConfig) -> VerifyReport:
    """Run both scripts and compare them. Raises VerifyError when nothing could be run."""
    the_plan = plan(config)
    try:
        with tempfile.TemporaryDirectory(prefix="dp2ddp-verify-", dir=config.temp_root) as tmp:
            workdir = Path(tmp)
            scripts = prepare_scripts(config, workdir)
            results = _launch(config, the_plan, scripts, workdir)
            return _judge(config, the_plan, scripts, workdir, results)
    except OSError as exc:  # no temporary directory, cannot start python, disk full...
        raise VerifyError(f"cannot run: {exc}") from None


def _launch(
    config: VerifyConfig, the_plan: Plan, scripts: Scripts, workdir: Path
) -> dict[str, launch.RunResult]:
    env = launch.run_env(os.environ, the_plan.cuda_visible, the_plan.backend == "gloo")
    cwd = config.cwd or Path.cwd()
    original = protocol.RunnerOptions(
        out=str(workdir / launch.ORIGINAL),
        steps=config.steps,
        seed=config.seed,
        file_attr=str(scripts.original.resolve()),
        no_dropout=config.no_dropout,
        freeze_batchnorm=config.freeze_batchnorm,
        # --per-process-batch: the original runs the migration's global batch
        scale_batch=the_plan.nproc if config.migrate_options.per_process_batch else 1,
    )
    migrated = dataclasses.replace(
        original,
        out=str(workdir / launch.MIGRATED),
        file_attr=str(scripts.migrated_file_attr.resolve()),
        scale_batch=1,
    )
    specs = [
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
            env, cwd, workdir / "migrated.log", config.timeout,
        ),
    ]  # fmt: skip

    def cancel_others(result: launch.RunResult) -> bool:
        if not result.ok:
            return True
        record = load_rank(workdir / result.name / protocol.rank_dir_name(0), 0)
        return record.status == protocol.FINISHED and not record.events

    def complete(spec: launch.RunSpec) -> bool:
        world = the_plan.nproc if spec.name == launch.MIGRATED else 1
        return all(
            _saved(workdir / spec.name / protocol.rank_dir_name(rank)) for rank in range(world)
        )

    return launch.run_all(specs, the_plan.backend == "gloo", cancel_others, complete)


def _saved(rank_dir: Path) -> bool:
    """The rank stopped at the requested step and saved everything."""
    try:
        progress = json.loads((rank_dir / protocol.PROGRESS).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(progress, dict) and progress.get("status") == protocol.STOPPED


def _judge(
    config: VerifyConfig,
    the_plan: Plan,
    scripts: Scripts,
    workdir: Path,
    results: dict[str, launch.RunResult],
) -> VerifyReport:
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
    failures = _failures(config, results, original, ranks, scripts)
    if failures:
        return dataclasses.replace(head, failures=tuple(failures))

    numerics = compare_updates(original, ranks[0], config.rtol, config.atol)
    if len(original.events) != len(ranks[0].events):
        numerics.structure.append(
            f"the original made {len(original.events)} optimizer steps, the migration "
            f"{len(ranks[0].events)} (a script ended before --steps {config.steps})"
        )
    sharding = check_sharding(original, ranks, numerics.steps_compared)
    in_sync, sync_detail = rank_sync(ranks, numerics.steps_compared)
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
    )
    causes = diagnose(evidence)
    equivalent = numerics.passed and not sharding.failed and in_sync
    return dataclasses.replace(
        head,
        verdict=EQUIVALENT if equivalent else NOT_EQUIVALENT,
        exit_code=EXIT_EQUIVALENT if equivalent else EXIT_NOT_EQUIVALENT,
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
        notes=scripts.notes + tuple(_notes(config, original, ranks)),
    )


def _initial(numerics: Numerics) -> str:
    if numerics.initial_equal:
        return "identical"
    return f"differ: {numerics.initial_worst} by up to {numerics.initial_max_abs_diff:.3g}"


def _notes(config: VerifyConfig, original: RankRecord, ranks: list[RankRecord]) -> list[str]:
    notes = []
    if original.status == protocol.FINISHED:
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
    if config.no_dropout:
        notes.append("dropout was switched off in both runs for this check (--no-dropout)")
    if config.freeze_batchnorm:
        notes.append("BatchNorm used running statistics in both runs for this check")
    if config.migrate_options.per_process_batch:
        notes.append(
            "--per-process-batch: the original's DataLoader batch sizes were multiplied by "
            f"{len(ranks)} to match the migration's global batch"
        )
    return notes


def _excerpt(text: str, scripts: Scripts, lines: int = 25) -> str:
    text = text.replace(str(scripts.migrated.resolve()), scripts.migrated_label)
    kept = text.rstrip().splitlines()[-lines:]
    return "\n".join(kept)


def _failures(
    config: VerifyConfig,
    results: dict[str, launch.RunResult],
    original: RankRecord,
    ranks: list[RankRecord],
    scripts: Scripts,
) -> list[Failure]:
    failures: list[Failure] = []
    for name, records in ((launch.ORIGINAL, [original]), (launch.MIGRATED, ranks)):
        result = results.get(name)
        if result is None or result.cancelled:
            continue
        failure = _run_failure(config, result, records, name == launch.MIGRATED, scripts)
        if failure is not None:
            failures.append(failure)
    if not failures and any(r.cancelled for r in results.values()):
        failures.append(Failure("migrated", None, "cancelled", "a run was cancelled"))
    return failures


def _run_failure(
    config: VerifyConfig,
    result: launch.RunResult,
    records: list[RankRecord],
    distributed: bool,
    scripts: Scripts,
) -> Failure | None:
    run = result.name
    rank_of = (lambda r: r.rank) if distributed else (lambda r: None)  # noqa: E731
    failed = [r for r in records if r.status in (protocol.ERROR, protocol.HARNESS_ERROR)]
    if failed:
        # The first to fail is the cause; the others typically lost their peer in a collective.
        record = min(failed, key=lambda r: float((r.error or {}).get("time", "inf")))
        error = record.error or {}
        reason = "crashed" if record.status == protocol.ERROR else "harness error"
        message = f"{error.get('type', 'error')}: {error.get('message', '')}".rstrip(": ")
        return Failure(
            run, rank_of(record), reason, message,
            _excerpt(error.get("excerpt") or record.stderr, scripts),
        )  # fmt: skip
    if result.complete:
        return None
    if result.timed_out:
        progress = ", ".join(
            f"rank {r.rank} at step {r.steps}" if distributed else f"{r.steps} steps done"
            for r in records
        )
        tails = "\n".join(
            (f"--- rank {r.rank} ---\n" if distributed else "") + _excerpt(r.stderr, scripts, 8)
            for r in records
            if r.stderr.strip()
        )
        return Failure(
            run, None, "timed out",
            f"no result after {config.timeout:g} s ({progress}); a rank waiting in a collective "
            "for another that never comes? All its processes were ended.",
            tails,
        )  # fmt: skip
    if result.returncode != 0:
        silent = [r for r in records if r.status is None]
        rank = silent[0].rank if silent and distributed else None
        record = silent[0] if silent else records[0]
        text = record.stderr.strip() or result.log_tail
        return Failure(
            run, rank, "crashed",
            f"exited with status {result.returncode}"
            + (f" (rank {rank} saved no result)" if rank is not None else ""),
            _excerpt(text, scripts),
        )  # fmt: skip
    if not records[0].events:
        return Failure(
            run, None, "no optimizer step",
            "the script ended without calling optimizer.step(): nothing to compare",
            _excerpt(records[0].stdout, scripts, 8),
        )  # fmt: skip
    return None
