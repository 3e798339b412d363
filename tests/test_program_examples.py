"""The multi-module example programs (examples/project_*/): original/ and migrated/.

Fast tests: the committed migrated/ tree is exactly what `dp2ddp migrate .` makes of
original/ today, and examples/README.md lists each project. End to end (tests/e2e_driver.py,
as in test_examples.py): every original runs in a plain process, every migration under
torchrun with two CPU (gloo) processes; rank 0 logs what DataParallel logged (each epoch
line once), rank 1 nothing, the training loader is shared out between the ranks and the
validation loader, evaluated in another module than the one that builds it, is not.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from test_examples import (
    EXAMPLES_DIR,
    Launch,
    _assert_logs_like_original,
    _assert_ran,
    _launch,
)

PROJECTS = sorted(p.parent.name for p in EXAMPLES_DIR.glob("project_*/original"))
#: entry script, training set size, evaluation set size (None: no evaluation loader).
ENTRIES = {
    "project_classifier": ("train.py", 256, 96),
    "project_importlib_task": ("main.py", 256, None),
    "project_init_paths": ("tools/train.py", 256, 96),
    "project_script_module": ("fit.py", 256, 96),
    "project_trainer_package": ("run.py", 192, None),
}
#: Imported modules that are scripts of their own too (a `__main__` block that wraps): the
#: migrated one still runs with plain python and under torchrun (docs/programs.md).
SECOND_ENTRIES = {"project_script_module": "evaluate.py"}


def _regenerate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("regenerate", EXAMPLES_DIR / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_there_are_program_examples() -> None:
    assert len(PROJECTS) >= 2
    assert set(PROJECTS) == set(ENTRIES)


@pytest.mark.parametrize("name", PROJECTS)
def test_committed_migration_is_current(name: str) -> None:
    regenerate = _regenerate()
    tree, _ = regenerate.migrate_project(EXAMPLES_DIR / name / "original")
    committed = regenerate.project_tree(EXAMPLES_DIR / name / "migrated")
    assert committed == tree, f"examples/{name}/migrated is stale: run examples/regenerate.py"
    for path, text in tree.items():
        compile(text, path, "exec")


@pytest.mark.parametrize("name", PROJECTS)
def test_readme_lists_the_project(name: str) -> None:
    assert f"[{name}]({name}/original/" in (EXAMPLES_DIR / "README.md").read_text()


# -- end to end ------------------------------------------------------------------------
def _scripts(kind: str) -> list[Path]:
    entries = [EXAMPLES_DIR / name / kind / ENTRIES[name][0] for name in PROJECTS]
    return entries + _second_entries(kind)


def _second_entries(kind: str) -> list[Path]:
    return [EXAMPLES_DIR / name / kind / script for name, script in SECOND_ENTRIES.items()]


@pytest.fixture(scope="module")
def plain_programs(tmp_path_factory: pytest.TempPathFactory) -> Launch:
    """The originals, then the migrated second entry scripts (a world of one)."""
    out_dir = tmp_path_factory.mktemp("plain_programs") / "out"
    return _launch([sys.executable], out_dir, _scripts("original") + _second_entries("migrated"))


@pytest.fixture(scope="module")
def torchrun_programs(tmp_path_factory: pytest.TempPathFactory) -> Launch:
    out_dir = tmp_path_factory.mktemp("torchrun_programs") / "out"
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    return _launch(prefix, out_dir, _scripts("migrated"))


def _by_size(launch: Launch, script: Path, rank: int) -> dict[str, int]:
    status = launch.status(script, rank) or {}
    counts = status.get("indices_by_size")
    if not counts:
        pytest.skip("this torch has no DataLoader iterator hook to count samples with")
    assert isinstance(counts, dict)
    return counts


@pytest.mark.e2e
@pytest.mark.parametrize("name", PROJECTS)
def test_program_trains_under_torchrun(
    plain_programs: Launch, torchrun_programs: Launch, name: str
) -> None:
    entry = ENTRIES[name][0]
    original = EXAMPLES_DIR / name / "original" / entry
    migrated = EXAMPLES_DIR / name / "migrated" / entry
    _assert_ran(plain_programs, original, 1)
    _assert_ran(torchrun_programs, migrated, 2)
    report = torchrun_programs.report(migrated, 2)
    if torchrun_programs.logs(migrated, 1):
        pytest.fail(f"rank 1 printed or logged; only rank 0 should\n{report}")
    _assert_logs_like_original(
        plain_programs.logs(original, 0), torchrun_programs.logs(migrated, 0), report
    )


@pytest.mark.e2e
@pytest.mark.parametrize("name", PROJECTS)
def test_program_shares_the_training_data_out(
    plain_programs: Launch, torchrun_programs: Launch, name: str
) -> None:
    entry, train_size, eval_size = ENTRIES[name]
    original = EXAMPLES_DIR / name / "original" / entry
    migrated = EXAMPLES_DIR / name / "migrated" / entry
    _assert_ran(plain_programs, original, 1)
    _assert_ran(torchrun_programs, migrated, 2)
    drawn = _by_size(plain_programs, original, 0)
    ranks = [_by_size(torchrun_programs, migrated, rank) for rank in (0, 1)]
    train = str(train_size)
    assert drawn[train] > 0
    rank0, rank1 = ranks[0][train], ranks[1][train]
    assert rank0 + rank1 == drawn[train] and rank0 == rank1, (
        f"DataParallel drew {drawn[train]} training samples; under torchrun rank 0 drew "
        f"{rank0} and rank 1 {rank1}, not a half each"
    )
    if eval_size is not None:  # evaluated in train.py, built in data.py: full set per rank
        full = drawn[str(eval_size)]
        assert full > 0 and all(r[str(eval_size)] == full for r in ranks), (drawn, ranks)


@pytest.mark.e2e
@pytest.mark.parametrize("name", sorted(SECOND_ENTRIES))
def test_second_entry_script_still_runs(
    plain_programs: Launch, torchrun_programs: Launch, name: str
) -> None:
    """An imported module that is also a script (its `__main__` block wraps a model) is
    migrated as an entry of its own: plain `python` and torchrun both run it to the end,
    printing what the original printed, once."""
    original = EXAMPLES_DIR / name / "original" / SECOND_ENTRIES[name]
    migrated = EXAMPLES_DIR / name / "migrated" / SECOND_ENTRIES[name]
    _assert_ran(plain_programs, original, 1)
    _assert_ran(plain_programs, migrated, 1)
    _assert_ran(torchrun_programs, migrated, 2)
    expected = plain_programs.logs(original, 0)
    assert "final" in expected
    assert plain_programs.logs(migrated, 0) == expected
    assert torchrun_programs.logs(migrated, 0) == expected
    assert torchrun_programs.logs(migrated, 1) == ""


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("name", "files"),
    [
        ("project_classifier", "train.py, data.py, models.py, _dp2ddp.py"),
        ("project_importlib_task", "main.py, tasks/classify.py, feeds/synthetic.py, _dp2ddp.py"),
    ],
)
def test_verify_of_a_program_entry_passes(tmp_path: Path, name: str, files: str) -> None:
    """`dp2ddp verify ENTRY` on the untouched original project migrates the whole program in
    a copy and finds it equivalent, with the training data shared out between the ranks
    (project_importlib_task: modules imported with importlib, by literal and config names)."""
    project = tmp_path / "project"
    shutil.copytree(
        EXAMPLES_DIR / name / "original",
        project,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    done = subprocess.run(
        [sys.executable, "-m", "dp2ddp", "verify", ENTRIES[name][0]],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=420,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "dp2ddp verify: EQUIVALENT" in done.stdout
    assert "sharding           ok" in done.stdout
    assert f"migrated 4 files: {files}" in done.stdout
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before  # only read
