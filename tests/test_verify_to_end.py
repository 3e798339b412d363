"""`dp2ddp verify` beyond the first K steps, end to end under real torchrun (gloo on CPU).

`--to-end` on a good migration and on one that prints and saves on every rank; a helper's PIL
image saved by one rank; a rank-0-only barrier after training (a real hang, read from the
ranks' stacks, and the gloo variant where the peer has exited); a project whose optimizer is
re-created every epoch (verify copies the project, migrates the entry there and stops after K
global steps); a run that goes NaN in both scripts; a migration without a sampler whose to-end
checks are reported beside the failed step comparison. The runs are the pairs of one shared
launch (`verified`), --to-end ones too since stop 60; the two barrier cases keep a launch
each (a hang, a crash: they end a launch).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from shared_verify import Pair, Shared, report_of, run_pairs, staged

from dp2ddp.verify.config import VerifyConfig
from dp2ddp.verify.report import VerifyReport
from dp2ddp.verify.session import verify

pytestmark = pytest.mark.e2e

CASES = Path(__file__).parent / "verify_cases"
ORIGINAL = CASES / "mlp_dp.py"
PROJECT = CASES / "points_project"


def _run(
    tmp_path: Path, original: Path, migrated: Path | None, *args: str, **options: Any
) -> VerifyReport:
    """One verify in `options["cwd"]` (default tmp_path/run); its temporary folder must be gone."""
    temp_root = tmp_path / "tmp"
    temp_root.mkdir()
    cwd = options.pop("cwd", tmp_path / "run")
    cwd.mkdir(exist_ok=True)
    options.setdefault("timeout", 240.0)
    if migrated is None:  # a case of this repository: verify copies its folder, not the repo
        original = staged(original, tmp_path / "staged")
    report = verify(
        VerifyConfig(original, migrated, script_args=args, cwd=cwd, temp_root=temp_root, **options)
    )
    assert list(temp_root.iterdir()) == [], "temporary files left behind"
    return report


def _project(tmp_path: Path) -> Path:
    """A copy of the points project (its own root: no pyproject.toml/.git above tmp_path)."""
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    return project


OPTIMIZER_PER_EPOCH = "test_an_optimizer_per_epoch_stops_after_k_global_steps"
NAN = "test_both_runs_going_nan_is_not_comparable"
GOOD_PROJECT = "test_to_end_passes_on_a_good_migration_of_a_project"
PIL_IMAGE = "test_to_end_a_helpers_pil_image_is_saved_by_one_rank"


@pytest.fixture(scope="module")
def verified(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Shared]:
    """The runs in one original process and one launch (tests/shared_verify.py; stop 57:
    three verify runs became one; stop 60: the --to-end runs too, six more): the points
    project's, each in a copy of its own, started there; the others in a folder of their
    own. Kept as runs of their own: the barrier cases (a hang and a crash end a launch).
    The restart case's scripts exit with their status, which ends the shared launch: last."""
    projects = tmp_path_factory.mktemp("projects")
    to_end = {"to_end": True}

    def project(test: str, *args: str, **options: Any) -> Pair:
        copy = _project(projects / test)
        return Pair(test, copy / "train.py", None, args, {"cwd": copy, "timeout": 240.0, **options})

    def helper_image() -> Pair:  # tests/program_fixtures/image_helper_save, copied
        copy = projects / PIL_IMAGE
        shutil.copytree(Path(__file__).parent / "program_fixtures/image_helper_save/input", copy)
        return Pair(PIL_IMAGE, copy / "train.py", None, (), {"cwd": copy, **to_end, "steps": 2})

    pairs = {
        "optimizer_per_epoch": project(OPTIMIZER_PER_EPOCH, steps=8),
        "nan": project(NAN, "--lr", "1e8", steps=20),
        "memory_bank": Pair(
            "test_a_memory_bank_apart_before_the_parameters_is_named",
            CASES / "memory_bank_dp.py",
            options={"steps": 3},
        ),
        "good_project": project(GOOD_PROJECT, "--epochs", "3", **to_end),
        **({"pil_image": helper_image()} if _has_pil() else {}),
        "every_rank": Pair(
            "test_to_end_finds_output_and_files_written_by_every_rank",
            ORIGINAL,
            CASES / "mlp_ddp_every_rank.py",
            options=to_end,
        ),
        "own_run_dir": Pair(
            "test_to_end_finds_a_run_directory_per_rank_and_stdin_read_by_every_rank",
            ORIGINAL,
            CASES / "mlp_ddp_own_run_dir.py",
            options=to_end,
        ),
        "apart_at_end": Pair(
            "test_ranks_apart_at_the_end_fail_the_verdict",
            CASES / "plateau_on_rank_figure_dp.py",
            options=to_end,
        ),
        "no_sampler": Pair(
            "test_to_end_is_reported_when_the_step_comparison_fails",
            ORIGINAL,
            CASES / "mlp_ddp_no_sampler.py",
            options=to_end,
        ),
        "restart_exit": Pair(  # its exit(3) ends the launch: last
            "test_a_status_the_script_chooses_is_compared_to_the_end",
            CASES / "restart_exit_dp.py",
            options=to_end,
        ),
    }
    return run_pairs(request, tmp_path_factory.mktemp("verified"), pairs, timeout=240.0)


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _keys(report: VerifyReport) -> list[str]:
    return [cause.key for cause in report.causes]


def test_to_end_passes_on_a_good_migration_of_a_project(
    tmp_path: Path, verified: dict[str, Shared]
) -> None:
    """ENTRY alone: migrated in a copy of its project (relative data path, local module),
    both runs go to their end: exits, output once, checkpoint written once; the log file
    rank 1's handler opened (appending) and never wrote into is rank 0's alone (before:
    "NOT once: train.log by ranks 0, 1")."""
    report = report_of(verified, "good_project")
    project = verified["good_project"].cwd
    before = _tree(_project(tmp_path))  # the copy as it was before the runs
    assert report.exit_code == 0, report
    assert "temporary copy" in report.migrated
    assert report.steps_compared == 3
    end = report.to_end
    assert end["steps"] == "3 compared, then 15 more in the original, 15 in the migration"
    assert end["exits"].startswith("ok: ")
    assert end["output"] == "ok: rank 0 alone printed the original's 3 lines"
    # the last batch's loss, printed by rank 0 from the same final weights: its own share's,
    # a difference of the figures row and a note (stop 73 loadersub), not a cause
    assert end["figures"].startswith("DIFFER: 3 of 3 lines hold other numbers"), end
    assert any("from the same final weights" in note for note in report.notes), report.notes
    assert end["files"] == "ok: each written by one rank (train.log, checkpoints/last.pt)"
    assert "ranks identical at the end" in end["final params"]
    # the original ran in the user's project and wrote its checkpoint there; nothing else changed
    after = _tree(project)
    assert after.pop("checkpoints/last.pt")
    assert after.pop("train.log") == b"saved checkpoints/last.pt\n"
    assert after == before


def _has_pil() -> bool:
    try:
        import PIL  # noqa: F401
    except ImportError:
        return False
    return True


def test_to_end_a_helpers_pil_image_is_saved_by_one_rank(verified: dict[str, Shared]) -> None:
    """tests/program_fixtures/image_helper_save (knazeri/edge-connect@3142579's sample grids,
    `images = stitch_images(...)` returning a PIL image, `images.save(name)`): migrated, the
    grids are written by rank 0 alone (before: by every rank, "files NOT once")."""
    pytest.importorskip("PIL")
    report = report_of(verified, "pil_image")
    assert report.to_end["exits"].startswith("ok: "), report
    assert report.to_end["files"] == (
        "ok: each written by one rank (samples/000.png, samples/001.png)"
    ), report


def test_to_end_finds_output_and_files_written_by_every_rank(verified: dict[str, Shared]) -> None:
    report = report_of(verified, "every_rank")
    assert report.exit_code == 1, report
    assert _keys(report) == ["written_per_rank", "duplicated_output"]
    assert report.causes[0].detail.endswith("mlp.pt by ranks 0, 1")
    assert "rank 1 also printed 2 of them ('epoch 0: loss" in report.causes[1].detail
    assert report.to_end["files"].startswith("NOT once: ")


def test_to_end_finds_a_run_directory_per_rank_and_stdin_read_by_every_rank(
    verified: dict[str, Shared],
) -> None:
    """Issue 29: rank 1 made runs/exp_1, which rank 0 did not, and read stdin as well."""
    report = report_of(verified, "own_run_dir")
    assert report.exit_code == 1, report
    assert _keys(report) == ["directory_per_rank", "stdin_per_rank"]
    # the runs' stdin is an empty pipe (launch._start): rank 1 read "" and made runs/exp_1.
    # It was /dev/null, a plain file on the test machine that other processes wrote into:
    # under load rank 1 read `{"epochs": 2}` or null bytes there (stop 49 g2)
    detail = report.causes[0].detail
    # the folder as the run made it: relative to its own working folder since the migrated
    # run has a copy of its own (stop 57 s3), absolute before
    assert detail == "runs/exp_1 by rank 1" or detail.endswith("/runs/exp_1 by rank 1"), detail
    assert report.to_end["stdin"] == "NOT once: read by rank 1 as well"


@pytest.mark.parametrize("after_training", ["evaluate", "exit"])
def test_a_barrier_on_rank_0_alone_is_named_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after_training: str
) -> None:
    """evaluate: rank 1 waits in an all_reduce, rank 0 in the barrier: a hang, diagnosed from
    the stacks at the timeout. exit: rank 1 leaves and gloo fails rank 0's barrier."""
    monkeypatch.setenv("VERIFY_CASE_AFTER_TRAINING", after_training)
    script = tmp_path / "barrier_case_ddp.py"
    shutil.copy(CASES / "mlp_ddp_barrier.py", script)
    barrier_line = next(
        n
        for n, line in enumerate(script.read_text().splitlines(), 1)
        if "dist.barrier()  # BUG" in line
    )
    report = _run(tmp_path, ORIGINAL, script, to_end=True, timeout=45.0)
    assert report.exit_code == 2, report
    (failure,) = report.failures
    assert failure.run == "migrated"
    assert _keys(report) == ["collective_not_reached"]
    detail = report.causes[0].detail
    assert f"rank 0 waits in dist.barrier() at {script}:{barrier_line}" in detail
    if after_training == "evaluate":
        assert failure.reason == "timed out"
        assert f"rank 1 waits in dist.all_reduce(metric) at {script}:{barrier_line + 3}" in detail
    else:
        assert (failure.rank, failure.reason) == (0, "crashed")
        assert "rank 1 has exited" in detail
    assert _processes_running(str(script)) == []


def _processes_running(needle: str) -> list[int]:
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if needle in cmdline:
            found.append(int(entry.name))
    return found


def test_an_optimizer_per_epoch_stops_after_k_global_steps(verified: dict[str, Shared]) -> None:
    """20 epochs of 6 steps, a new SGD each epoch: verify compares 8 steps over two optimizers
    and stops both runs there (the scripts never reach their checkpoint)."""
    report = report_of(verified, "optimizer_per_epoch")
    project = verified["optimizer_per_epoch"].cwd
    assert report.exit_code == 0, report
    assert (report.steps_compared, report.optimizers) == (8, 2)
    assert report.initial_weights == "identical"
    assert not (project / "checkpoints").exists()


def test_both_runs_going_nan_is_not_comparable(verified: dict[str, Shared]) -> None:
    """A learning rate so large that both runs overflow within two steps, before the float32
    rounding of whole batch against shards can part them (at 1e4 that depended on the seed)."""
    report = report_of(verified, "nan")
    assert report.exit_code == 2, report
    assert report.verdict == "not comparable"
    assert _keys(report) == ["nonfinite_both"]
    assert "both runs diverge (non-finite) at step" in report.causes[0].title
    assert "learning rate" in report.causes[0].fix


def test_ranks_apart_at_the_end_fail_the_verdict(verified: dict[str, Shared]) -> None:
    """The steps compared agree and the ranks are in sync there, but a learning rate each
    rank stepped on its own share's figure (DP090) parted them later: NOT EQUIVALENT, named
    with the warning's line (before: "EQUIVALENT over the first 3 optimizer steps only",
    "ranks DIFFER at the end" as information)."""
    report = report_of(verified, "apart_at_end")
    assert report.exit_code != 0, report
    assert "ranks DIFFER at the end" in report.to_end["final params"]
    cause = next(c for c in report.causes if c.key == "ranks_apart_at_end")
    assert "DP090 at " in cause.detail and "plateau_on_rank_figure_dp.py:4" in cause.detail, cause


def test_to_end_is_reported_when_the_step_comparison_fails(verified: dict[str, Shared]) -> None:
    """No DistributedSampler: the steps differ, and the to-end checks are still run and shown."""
    report = report_of(verified, "no_sampler")
    assert report.exit_code == 1, report
    assert "sampler_missing" in _keys(report)
    assert list(report.to_end)[:5] == ["steps", "exits", "output", "figures", "files"], (
        report.to_end
    )
    # every rank trained on all the data: rank 0's printed loss is not the original's
    assert report.to_end["figures"].startswith("information only: "), report.to_end
    assert report.to_end["exits"].startswith("ok: ")
    assert report.to_end["files"].startswith("ok: each written by one rank (")
    assert report.to_end["files"].endswith("mlp.pt)")


def test_a_status_the_script_chooses_is_compared_to_the_end(verified: dict[str, Shared]) -> None:
    """`exit(3)` after training in the original and on the migrated ranks: compared to
    the end, the exits matching, not "original run crashed" (V1)."""
    report = report_of(verified, "restart_exit")
    assert report.exit_code == 0, report
    assert not report.failures, report.failures
    assert "status their script chose, 3" in report.to_end["exits"], report.to_end
    assert report.to_end["output"].startswith("ok: "), report.to_end


def test_a_memory_bank_apart_before_the_parameters_is_named(verified: dict[str, Shared]) -> None:
    """The bank differs after step 1, the parameters from step 2: the cause names the
    buffer (V3), and the migration's DP007 names the Function's backward."""
    report = report_of(verified, "memory_bank")
    assert report.exit_code == 1, report
    assert report.first_diverging_step == 2, report
    assert _keys(report)[0] == "buffer_diverged", report.causes
    assert "MemoryBank.bank" in report.causes[0].title
    assert any("DP007" in note and "Similarity.backward()" in note for note in report.notes)
