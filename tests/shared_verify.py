"""Verify runs shared by the tests of one module: one original process and one launch.

A `dp2ddp verify` run costs an original process and a torchrun launch (four imports of
torch) for scripts that run in under a second. A module lists its runs as
`Pair`s; a module-scoped fixture calls `run_pairs`, which runs the pairs of the tests
selected in this session together (`dp2ddp.verify.pairs.verify_pairs`: each pair in a child
forked after the imports, judged from its own records as `verify` judges it), and each test
reads its pair's report with `report_of`, which also asserts that the pair's run left nothing
in its temporary folder. Keep a run of its own where the test is about the run itself (the
command line, a rank that crashes and so ends the launch, a hang, `--to-end`).

A pair that verify migrates itself (`migrated` None) copies its original's project first, as
`dp2ddp verify` does: for a case in this repository that project was the whole repository
(its pyproject.toml the nearest marker: 5,000 files, 22 MB, 3 to 5 CPU s and many wall
seconds of copying per pair; stop 57). `run_pairs` therefore stages the case's folder once,
at the same path relative to the repository, under a folder marked as a project (an empty
pyproject.toml, as the repository's own holds no [tool.dp2ddp] table), and verifies the staged
original: the same program, the same relative paths, a project of that folder alone.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from dp2ddp.verify.config import VerifyConfig
from dp2ddp.verify.pairs import verify_pairs
from dp2ddp.verify.report import VerifyReport


@dataclass(frozen=True)
class Pair:
    """One verify run of the shared launch, read by the test function `test`."""

    test: str
    original: Path
    migrated: Path | None = None  # None: migrated by verify, in a copy of its project
    script_args: tuple[str, ...] = ()
    #: VerifyConfig's other fields (`cwd`: where the runs start, else the pair's own folder)
    options: dict[str, Any] = field(default_factory=dict)
    #: Its migrated run fails (a crash is its verdict), which ends a shared launch: run after
    #: the pairs of every file that shares it (`run_pairs_across_files`), not before them.
    ends_launch: bool = False


#: The repository: a case under it is staged (above) before verify copies its project.
REPOSITORY = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Shared:
    report: VerifyReport
    left: list[Path]  # what the pair's run left in its temporary folder (nothing)
    original_kept: bool = True  # the original verify read is as it was (verify only reads it)
    cwd: Path = Path()  # where the pair's runs started


def staged(original: Path, stage: Path) -> Path:
    """`original` in a copy of its folder under `stage` (copied once), at its path relative
    to the repository, `stage` marked as the project's root; a file outside the repository
    is verified where it is (the test made its project)."""
    try:
        relative = original.resolve().relative_to(REPOSITORY)
    except ValueError:
        return original
    folder = stage / relative.parent
    if not folder.is_dir():
        shutil.copytree(
            REPOSITORY / relative.parent, folder, ignore=shutil.ignore_patterns("__pycache__")
        )
        (stage / "pyproject.toml").touch()
    return stage / relative


def _selected(session: pytest.Session, module: object) -> set[str]:
    """The names of `module`'s test functions selected in this session."""
    return {
        getattr(item, "originalname", item.name)
        for item in session.items
        if getattr(item, "module", None) is module
    }


def run_pairs(
    request: pytest.FixtureRequest, root: Path, pairs: dict[str, Pair], timeout: float = 300.0
) -> dict[str, Shared]:
    """The reports of the pairs whose test is selected, each run in root/<key>."""
    selected = _selected(request.session, request.module)
    return _run_chosen(root, {k: p for k, p in pairs.items() if p.test in selected}, timeout)


#: The module attribute of a file whose `PAIRS` share one launch with other such files.
ACROSS_FILES = "PAIRS_ACROSS_FILES"
_ACROSS_DONE = pytest.StashKey[dict[str, dict[str, Shared]]]()


def run_pairs_across_files(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, timeout: float
) -> dict[str, Shared]:
    """This module's `PAIRS` reports, run with those of every file of the session that sets
    `PAIRS_ACROSS_FILES = True` in one original process and one launch (stop 60: five small
    files of one launch each, tests/test_verify_s55..s59). The first such module fixture
    runs the selected pairs of all of them (those marked `ends_launch` last); the others
    read their share. Under `-n 2 --dist loadfile` tests/conftest.py's scheduler sends
    these files to one worker as one unit (`shares_a_launch`): a module fixture cannot span
    files otherwise."""
    done = request.config.stash.setdefault(_ACROSS_DONE, {})
    name = request.module.__name__
    if name not in done:
        modules: list[ModuleType] = [
            module
            for module in dict.fromkeys(
                getattr(item, "module", None) for item in request.session.items
            )
            if isinstance(module, ModuleType)
            and getattr(module, ACROSS_FILES, False)
            and module.__name__ not in done
        ]
        chosen: dict[str, Pair] = {}
        for module in modules:
            selected = _selected(request.session, module)
            chosen.update(
                (f"{module.__name__}.{key}", pair)
                for key, pair in module.PAIRS.items()
                if pair.test in selected
            )
        order = sorted(chosen, key=lambda key: chosen[key].ends_launch)  # stable
        shared = _run_chosen(
            tmp_path_factory.mktemp("pairs"), {key: chosen[key] for key in order}, timeout
        )
        for module in modules:
            prefix = f"{module.__name__}."
            done[module.__name__] = {
                key[len(prefix) :]: report
                for key, report in shared.items()
                if key.startswith(prefix)
            }
    return done[name]


def shares_a_launch(path: Path) -> bool:
    """The test file sets `PAIRS_ACROSS_FILES = True` (read as text: the xdist scheduler
    groups files before any is imported)."""
    try:
        text = path.read_text()
    except OSError:
        return False
    return re.search(rf"^{ACROSS_FILES} = True\b", text, re.MULTILINE) is not None


def _run_chosen(root: Path, pairs: dict[str, Pair], timeout: float) -> dict[str, Shared]:
    """The reports of `pairs`, each run in root/<key>."""
    keys = list(pairs)
    configs = []
    for key in keys:
        pair = pairs[key]
        folder = root / key
        (folder / "tmp").mkdir(parents=True)
        original = pair.original if pair.migrated else staged(pair.original, root / "_staged")
        settings = {"timeout": timeout, "cwd": folder, **pair.options}
        configs.append(
            VerifyConfig(
                original,
                pair.migrated,
                script_args=pair.script_args,
                temp_root=folder / "tmp",
                **settings,
            )
        )
    if not configs:
        return {}
    reports = _reports(dict(zip(keys, configs, strict=True)))
    return {
        key: Shared(
            reports[key],
            list((root / key / "tmp").iterdir()),
            config.original.read_bytes() == pairs[key].original.read_bytes(),
            config.cwd or root / key,
        )
        for key, config in zip(keys, configs, strict=True)
    }


def cancelled(report: VerifyReport) -> bool:
    """The shared launch ended before this pair's migrated run started: no verdict."""
    return any(failure.reason == "cancelled" for failure in report.failures)


def _reports(configs: dict[str, VerifyConfig]) -> dict[str, VerifyReport]:
    """Each pair's report. A pair whose migrated run fails ends the shared launch (its
    peers may wait in a collective), and the later pairs are cancelled: those run again in
    a launch of their own (the next, and so on), each working folder first put back as it
    was (the originals ran on: they may have written there). Each round leaves out at least
    the pair that failed; a round that finishes none stops, its pairs still cancelled."""
    listings = {key: _listing(config.cwd) for key, config in configs.items()}
    reports: dict[str, VerifyReport] = {}
    pending = list(configs)
    while pending:
        reports.update(zip(pending, verify_pairs([configs[key] for key in pending]), strict=True))
        again = [key for key in pending if cancelled(reports[key])]
        if len(again) == len(pending):
            break
        for key in again:
            _restore(configs[key].cwd, listings[key])
        pending = again
    return reports


def _listing(folder: Path | None) -> set[Path]:
    return set(folder.rglob("*")) if folder is not None else set()


def _restore(folder: Path | None, listing: set[Path]) -> None:
    """Remove what a run added to `folder` (its files and folders not in `listing`)."""
    if folder is None:
        return
    for path in sorted(set(folder.rglob("*")) - listing, reverse=True):  # children first
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def report_of(shared: dict[str, Shared], key: str) -> VerifyReport:
    """The pair's report; its run left no temporary files behind and its original as it
    was, and it ran (not cancelled by an earlier pair's failure)."""
    assert shared[key].left == [], "temporary files left behind"
    assert shared[key].original_kept, "the original was changed"
    assert not cancelled(shared[key].report), shared[key].report.failures
    return shared[key].report
