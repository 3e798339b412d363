"""Stop 61 s3: `dp2ddp migrate .` takes a script the folder walk finds for a program only
where it trains (round 13 v3-D, VIPL-SLP/VAC_CSLR@71f3e03).

A data module's `if __name__ == "__main__":` demo (build the dataset, print a sample) beside
the training entry, which imports that module by a name its command line gives: no module
imports the demo's file statically, so the walk found it as an entry. At the base (8936342c)
its program (no DataParallel) migrated the `utils` package both share as a program without
DataParallel does, and `migrate .` exited 2: "utils/device.py: shared by several programs
that migrate it differently", main.py left unmigrated. A found script whose program wraps no
model (and has no DDP path) is now no program: its file is migrated alone, as a file no
entry reaches, and the shared modules follow the real entry's program. The golden
`program_s61_s3_data_demo_beside_entry` holds the tree (the same as `migrate main.py`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from dp2ddp.cli import main

CASE = Path(__file__).parent / "program_fixtures" / "program_s61_s3_data_demo_beside_entry"


def _work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "work"
    shutil.copytree(CASE / "input", work)
    (work / "pyproject.toml").touch()
    monkeypatch.chdir(work)
    return work


def test_a_data_modules_demo_is_no_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = _work(tmp_path, monkeypatch)
    result = CliRunner().invoke(main, ["migrate", "."], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert "shared by several programs" not in result.stderr, result.stderr
    assert "migrated main.py" in result.stderr, result.stderr
    assert "torchrun --standalone --nproc_per_node=auto main.py" in result.stderr
    assert "dataset/feeder.py" not in result.stderr.split("Launch with")[-1]
    assert (work / "dataset" / "feeder.py").read_text() == (
        CASE / "input" / "dataset" / "feeder.py"
    ).read_text()
    again = CliRunner().invoke(main, ["migrate", "--check", "."], catch_exceptions=False)
    assert again.exit_code == 0, again.stderr


def test_the_same_tree_as_migrating_the_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`migrate .` and `migrate main.py` give the same files."""
    work = _work(tmp_path, monkeypatch)
    assert CliRunner().invoke(main, ["migrate", "."]).exit_code == 0
    folder = {p.relative_to(work): p.read_text() for p in work.rglob("*.py")}
    named = tmp_path / "named"
    shutil.copytree(CASE / "input", named)
    (named / "pyproject.toml").touch()
    monkeypatch.chdir(named)
    assert CliRunner().invoke(main, ["migrate", "main.py"]).exit_code == 0
    assert folder == {p.relative_to(named): p.read_text() for p in named.rglob("*.py")}


def test_a_demo_named_on_the_command_line_is_still_a_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the user names is an entry whatever it holds: its program (no DataParallel)
    changes nothing."""
    work = _work(tmp_path, monkeypatch)
    result = CliRunner().invoke(main, ["migrate", "dataset/feeder.py"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert not (work / "_dp2ddp.py").exists()
