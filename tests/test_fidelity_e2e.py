"""Real-world fidelity, end to end: migrated scripts run under torchrun (2 CPU processes,
gloo) to the end, and the ranks stay in sync; a summed loss and a WGAN-GP whose penalty is
its own update pass `dp2ddp verify`.

The scripts in tests/e2e_cases/ are migrated in memory, written to a temporary directory and
run together in one torchrun launch of tests/e2e_driver.py, which records each rank's
`E2E_DIGEST` (sums of the model's parameters at the end): equal on both ranks means every
update was all-reduced.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dp2ddp import migrate_source
from dp2ddp.options import MigrateOptions
from dp2ddp.verify.config import VerifyConfig
from dp2ddp.verify.session import verify
from dp2ddp.verify.toend import KNOWN_EXIT_ABORT

pytestmark = pytest.mark.e2e

CASES = Path(__file__).resolve().parent / "e2e_cases"
DRIVER = Path(__file__).resolve().parent / "e2e_driver.py"
#: torch 2.13 on CPU: about one launch in ten aborts at process exit, after the script
#: finished ("terminate called without an active exception"); the status files tell.
EXIT_ABORT = KNOWN_EXIT_ABORT


def _migrate(name: str, out: Path) -> tuple[Path, set[str]]:
    result = migrate_source((CASES / f"{name}.py").read_text(), filename=f"{name}.py")
    assert result.changed, name
    path = out / f"{name}.py"
    path.write_text(result.code)
    return path, {d.code for d in result.diagnostics}


def _torchrun(out: Path, scripts: list[Path]) -> tuple[int, str]:
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node=2", str(DRIVER), str(out / "runs"), *map(str, scripts)]
    proc = subprocess.run(
        command,
        cwd=out,
        capture_output=True,
        text=True,
        timeout=400,
        env={**_clean_env(), "OMP_NUM_THREADS": "1"},
    )
    return proc.returncode, proc.stdout + proc.stderr


def _clean_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}


def _status(out: Path, script: Path, rank: int) -> dict[str, object]:
    path = out / "runs" / script.parent.name / script.stem / f"rank{rank}.status.json"
    assert path.exists(), f"{script.name} did not run on rank {rank}"
    status = json.loads(path.read_text())
    assert isinstance(status, dict)
    return status


#: One torchrun launch runs them all: a DataParallel wrap under a CUDA guard; WGAN-GP with
#: the penalty in the critic's one backward; WGAN-GP with the penalty as its own update
#: (before the rewrite: "Expected to have finished reduction in the prior iteration").
NAMES = ("cuda_guard", "gradient_penalty", "gradient_penalty_update")


@pytest.fixture(scope="module")
def launch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path], str]:
    out = tmp_path_factory.mktemp("fidelity")
    scripts: dict[str, Path] = {}
    codes: dict[str, set[str]] = {}
    for name in NAMES:
        scripts[name], codes[name] = _migrate(name, out)
    for name in ("gradient_penalty", "gradient_penalty_update"):
        # rewritten, not warned: the penalty's forward through D.module, then the average
        assert "DP023" not in codes[name], codes[name]
        text = scripts[name].read_text()
        assert "D.module(interpolated)" in text and "ddp_average_gradients(D)" in text
    returncode, console = _torchrun(out, list(scripts.values()))
    if returncode != 0:
        for script in scripts.values():
            for rank in (0, 1):
                assert _status(out, script, rank)["ok"], console[-6000:]
        assert EXIT_ABORT in console, console[-6000:]
    return out, scripts, console


@pytest.mark.parametrize("name", NAMES)
def test_migrated_script_keeps_the_ranks_in_sync(
    launch: tuple[Path, dict[str, Path], str], name: str
) -> None:
    out, scripts, console = launch
    first, second = (_status(out, scripts[name], rank) for rank in (0, 1))
    assert first["ok"] and second["ok"], console[-6000:]
    assert first["digest"] and first["digest"] == second["digest"], (first, second)


def test_gradient_penalty_update_passes_verify(tmp_path: Path) -> None:
    """The penalty's own update, rewritten: the migration's updates (critic, penalty,
    generator, over two optimizers) are the original's, and the ranks stay identical."""
    temp_root = tmp_path / "tmp"
    temp_root.mkdir()
    report = verify(
        VerifyConfig(
            CASES / "gradient_penalty_update.py",
            None,
            steps=6,
            cwd=tmp_path,
            temp_root=temp_root,
            timeout=300.0,
        )
    )
    assert report.exit_code == 0, report
    assert report.steps_compared == 6, report


def test_summed_loss_passes_verify(tmp_path: Path) -> None:
    """A summed loss migrated by default gives DataParallel's updates; with
    --keep-summed-loss they are 1/WORLD_SIZE of them (verify names the cause)."""
    original = CASES / "summed_loss.py"
    reports = []
    for keep in (False, True):
        temp_root = tmp_path / f"tmp{keep}"
        temp_root.mkdir()
        reports.append(
            verify(
                VerifyConfig(
                    original,
                    None,
                    cwd=tmp_path,
                    temp_root=temp_root,
                    timeout=300.0,
                    migrate_options=MigrateOptions(keep_summed_loss=keep),
                )
            )
        )
    scaled, kept = reports
    assert scaled.exit_code == 0, scaled
    assert kept.exit_code == 1, kept
    assert [cause.key for cause in kept.causes][:1] == ["sum_loss"], kept.causes


def test_self_advancing_sampler_passes_verify_across_epochs(tmp_path: Path) -> None:
    """No epoch loop for set_epoch (a `while` over steps, the loader returned in a tuple):
    6 steps of 2 per epoch cross two epoch boundaries, and every epoch's order must be the
    original's new one (a DistributedSampler without set_epoch would repeat the first)."""
    original = CASES / "while_epochs.py"
    result = migrate_source(original.read_text(), filename="while_epochs.py")
    assert "advance_epoch=True" in result.code
    assert [d.code for d in result.diagnostics] == ["DP011"]
    temp_root = tmp_path / "tmp"
    temp_root.mkdir()
    report = verify(
        VerifyConfig(original, None, steps=6, cwd=tmp_path, temp_root=temp_root, timeout=300.0)
    )
    assert report.exit_code == 0, report
    assert report.sharding_status == "ok", report
