"""`verify_pairs(configs)`: several verify runs in one original process and one launch.

A `dp2ddp verify` run starts a process for the original and a torchrun launch for the
migration: four imports of torch (most of its ~10 CPU s here) for scripts that often run in
under a second. verify_pairs plans each pair as verify does (its own temporary directory,
migration, runner options, environment and working folder: session.run_specs), runs every
pair's original in one process and every pair's migration in one launch (pairs_runner: a
child forked per pair after the imports, so each starts from a fresh runner's state), then
judges each pair from its own records as verify does (session.judge).

For many small cases, such as a test suite's; POSIX only (fork). The pairs share one plan
(world size, backend). A --to-end pair runs its scripts to their end in its children; its
exits are its children's (the pair's exit records, in torchrun's failure-summary form for the
checks that read torchrun's), not the shared launch's, and the shared runs are left to end by
themselves (no pair's records end a run early).
A pair whose migrated run fails ends the launch (its peers could wait in a collective): every
later pair is reported as not run (FAILED, "a run was cancelled"), never as passing; so does a
--to-end pair whose scripts choose an exit status (`exit(3)`): run it last. A pair past its
timeout is ended and reported timed out (FAILED), without the stacks verify collects from a
hung run of its own: a hang is verify's to diagnose, one pair per run.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from dp2ddp.verify import launch, protocol
from dp2ddp.verify.config import VerifyConfig
from dp2ddp.verify.pairs_runner import EXIT_FILE
from dp2ddp.verify.report import VerifyReport
from dp2ddp.verify.session import (
    Plan,
    Scripts,
    VerifyError,
    judge,
    plan,
    prepare_scripts,
    run_specs,
    saved,
)

_RUNNER = "dp2ddp.verify.runner"


@dataclass(frozen=True)
class _Pair:
    config: VerifyConfig
    workdir: Path
    scripts: Scripts
    specs: list[launch.RunSpec]  # [original, migrated]


def _combined(index: int, pairs: list[_Pair], batch: Path) -> launch.RunSpec:
    """One run (0: the originals, 1: the migrations) of every pair, through pairs_runner."""
    specs = [pair.specs[index] for pair in pairs]
    first = specs[0]
    cut = first.argv.index(_RUNNER)
    plan_file = batch / f"{first.name}.json"
    plan_file.write_text(
        json.dumps(
            {
                "base": first.env,
                "pairs": [
                    {
                        "argv": s.argv[s.argv.index(_RUNNER) + 1 :],
                        "env": s.env,
                        "cwd": str(s.cwd),
                        "timeout": s.timeout,
                    }
                    for s in specs
                ],
            }
        )
    )
    return launch.RunSpec(
        first.name,
        [*first.argv[:cut], "dp2ddp.verify.pairs_runner", str(plan_file)],
        first.env,
        first.cwd,
        batch / f"{first.name}.log",
        sum(s.timeout for s in specs),
    )


def _world(name: str, the_plan: Plan) -> int:
    return the_plan.nproc if name == launch.MIGRATED else 1


def _torchrun_summary(exits: list[dict[str, object] | None]) -> str:
    """The failed ranks' exit codes as torchrun's failure summary lists them (`rank : R`,
    `exitcode : C`), read by the --to-end exit checks (toend.torchrun_exit_codes)."""
    return "".join(
        f"\n  rank      : {rank}\n  exitcode  : {e['code']}"
        for rank, e in enumerate(exits)
        if e is not None and e["code"] != 0
    )


def _result(
    pair: _Pair, name: str, the_plan: Plan, whole: launch.RunResult, to_end: bool = False
) -> launch.RunResult:
    """The pair's share of the combined run `whole`, as run_all reports a run of its own.
    `to_end`: as verify's own --to-end run, never complete by its records alone (its exits
    are checked), and its failed ranks' codes its own, after the launch's log."""
    out = pair.workdir / name
    exits = []
    for rank in range(_world(name, the_plan)):
        try:
            exits.append(json.loads((out / EXIT_FILE.format(rank=rank)).read_text()))
        except (OSError, ValueError):
            exits.append(None)
    complete = all(
        saved(out / protocol.rank_dir_name(rank)) for rank in range(_world(name, the_plan))
    )
    if all(e is None for e in exits) and not complete:  # never started: the launch ended first
        return launch.RunResult(name, None, 0.0, timed_out=whole.timed_out, cancelled=True)
    codes = [e["code"] for e in exits if e is not None]
    failed = [c for c in codes if c != 0]
    if name == launch.MIGRATED:  # torchrun's status: 1 when a worker failed
        code: int | None = 1 if failed else 0
    else:
        code = failed[0] if failed else 0
    if None in exits and not failed:  # a rank still running when the launch ended
        code = whole.returncode if whole.returncode else None
    seconds = max((float(e["seconds"]) for e in exits if e is not None), default=whole.seconds)
    hung = any(e is not None and e.get("timed_out") for e in exits) or (
        whole.timed_out and None in exits
    )
    tail = whole.log_tail if failed or hung else ""
    if to_end and name == launch.MIGRATED and failed:  # later lines win in the reading
        tail += _torchrun_summary(exits)
    return launch.RunResult(name, code, seconds, hung, False, tail, complete and not to_end)


def verify_pairs(configs: Sequence[VerifyConfig]) -> list[VerifyReport]:
    """Each config's report, as `verify(config)` gives it; the runs are shared (above)."""
    plans = {plan(config) for config in configs}
    if len(plans) != 1:
        raise VerifyError("verify_pairs: the pairs must share one world size and backend")
    to_end = any(config.to_end for config in configs)
    the_plan = plans.pop()
    try:
        with ExitStack() as stack:
            pairs = []
            for config in configs:
                workdir = Path(
                    stack.enter_context(
                        tempfile.TemporaryDirectory(prefix="dp2ddp-verify-", dir=config.temp_root)
                    )
                )
                scripts = prepare_scripts(config, workdir)
                specs = run_specs(config, the_plan, scripts, workdir)
                pairs.append(_Pair(config, workdir, scripts, specs))
            batch = Path(
                stack.enter_context(
                    tempfile.TemporaryDirectory(prefix="dp2ddp-pairs-", dir=configs[0].temp_root)
                )
            )
            combined = [_combined(0, pairs, batch), _combined(1, pairs, batch)]

            def complete(spec: launch.RunSpec) -> bool:
                if to_end:  # every process must end by itself, as in verify's own run
                    return False
                return all(
                    saved(pair.workdir / spec.name / protocol.rank_dir_name(rank))
                    for pair in pairs
                    for rank in range(_world(spec.name, the_plan))
                )

            concurrent = the_plan.backend == "gloo" and not any(
                pair.scripts.shared_folder for pair in pairs
            )
            wholes = launch.run_all(combined, concurrent, lambda result: False, complete)
            return [
                judge(
                    pair.config,
                    the_plan,
                    pair.scripts,
                    pair.workdir,
                    {
                        name: _result(pair, name, the_plan, whole, pair.config.to_end)
                        for name, whole in wholes.items()
                    },
                    {},
                )
                for pair in pairs
            ]
    except OSError as exc:
        raise VerifyError(f"cannot run: {exc}") from None
