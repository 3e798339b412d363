"""Shared test helpers: the golden-fixture root and the harness that runs one pass alone.

Golden fixtures live in tests/fixtures/<case>/ (see test_fixtures.py for the layout); a case's
name starts with the NAME of the transform its author tests (`data_`, `rank_zero_`, ...).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import libcst as cst
import pytest
from hypothesis import HealthCheck, settings
from libcst.codemod import CodemodContext

from dp2ddp.options import MigrateOptions
from dp2ddp.result import Diagnostic
from dp2ddp.transforms._support.base import MigrationState, MigrationTransform

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"

# Hypothesis times its own input generation and fails a test whose draws take over a second
# (HealthCheck.too_slow): on CI's two cores beside torchrun launches, or on a loaded machine,
# that is the machine, not the test (test_rank_slices_rebuild_the_original_batches failed so
# with 2 inputs drawn in 1.48 s while eight sessions shared two cores). Every property still
# runs its examples and keeps its assertions.
settings.register_profile("dp2ddp", suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("dp2ddp")


def pytest_configure(config: pytest.Config) -> None:
    """Under `-n 2 --dist loadfile` xdist hands out whole files in the order of the
    collection (below) instead of its default, most tests first: that default put files of
    few but slow tests (one torchrun launch, verify runs) at the end of the queue, where one
    worker ran them alone while the other had finished (docs/testing.md, "Suite time")."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadfile`, with the files whose verify pairs share one launch
    (tests/shared_verify.py, `PAIRS_ACROSS_FILES = True`) handed out as one unit: one worker
    runs them one after another, and their shared fixture's launch once (stop 60)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from functools import cache

    from shared_verify import shares_a_launch
    from xdist.scheduler import LoadFileScheduling

    shared = cache(shares_a_launch)
    apart = cache(tests_of_a_unit_apart)

    class SharedLaunchScheduling(LoadFileScheduling):  # type: ignore[misc]  # untyped base
        def _split_scope(self, nodeid: str) -> str:
            path, _, test = nodeid.partition("::")
            if shared(config.rootpath / path):
                return "<verify pairs across files>"
            if test.split("[", 1)[0] in apart(config.rootpath / path):
                return f"{path}::<{UNIT_APART}>"
            return path

    return SharedLaunchScheduling(config, log)


#: A test file's module attribute naming its module fixtures whose tests are a unit apart.
UNIT_APART = "UNIT_APART_FIXTURES"


def tests_of_a_unit_apart(path: Path) -> frozenset[str]:
    """The test functions of `path` that take a fixture its `UNIT_APART_FIXTURES` names (a
    tuple of names): xdist hands them out as a unit of their own, so that a file's slow
    fixtures that no test shares run on both workers (stop 60: test_round_classes_e2e's
    verify pairs apart from its driver launch; that file alone was the suite's longest
    unit). Read from the source (ast), before any import."""
    try:
        text = path.read_text()
    except OSError:
        return frozenset()
    if UNIT_APART not in text:
        return frozenset()
    body = ast.parse(text).body
    names: set[str] = set()
    for node in body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == UNIT_APART for target in node.targets
        ):
            names.update(ast.literal_eval(node.value))
    return frozenset(
        node.name
        for node in body
        if isinstance(node, ast.FunctionDef)
        and node.name.startswith("test")
        and names & {arg.arg for arg in node.args.args}
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """On an xdist worker: the files with end-to-end tests first, most such tests first,
    then the others, most tests first (xdist's own order), so the slow files start early
    and the many short ones fill both workers' tails. A file's tests stay together and in
    their order; a serial run keeps pytest's order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    tests: dict[str, int] = {}
    e2e: dict[str, int] = {}
    for item in items:
        path = item.nodeid.split("::")[0]
        tests[path] = tests.get(path, 0) + 1
        e2e[path] = e2e.get(path, 0) + (item.get_closest_marker("e2e") is not None)
    order = {
        path: rank
        for rank, path in enumerate(
            sorted(tests, key=lambda p: (e2e[p] == 0, -(e2e[p] or tests[p])))  # stable
        )
    }
    items.sort(key=lambda item: order[item.nodeid.split("::")[0]])


def fixture_cases(prefix: str = "", *, migrated: bool = False) -> list[str]:
    """Names of the golden fixtures starting with `prefix` (only those with an expected.py
    when `migrated`), sorted."""
    return sorted(
        p.name
        for p in FIXTURES.iterdir()
        if p.name.startswith(prefix)
        and (p / "input.py").is_file()
        and (not migrated or (p / "expected.py").is_file())
    )


def warning_lines(diagnostics: Iterable[Diagnostic]) -> str:
    """The warnings.txt text for `diagnostics`: one `line:col CODE message` line each."""
    return "".join(f"{d.line}:{d.col} {d.code} {d.message}\n" for d in diagnostics)


def codes_in(warnings_txt: str) -> list[str]:
    """The codes of a warnings.txt text, in order."""
    return [line.split()[1] for line in warnings_txt.splitlines() if line.strip()]


def run_pass(
    transform: type[MigrationTransform],
    source: str,
    options: MigrateOptions | None = None,
) -> tuple[str, MigrationState]:
    """Run one pass alone on `source`, as if the file used DataParallel (what the pipeline
    guarantees before any pass after detect runs); returns the code and the state."""
    state = MigrationState(options=options or MigrateOptions(), has_dataparallel=True)
    module = transform(CodemodContext(), state).transform_module(cst.parse_module(source))
    return module.code, state
