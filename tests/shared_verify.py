"""Verify runs shared by the tests of one module: one original process and one launch.

A `dp2ddp verify` run costs an original process and a torchrun launch (four imports of
torch) for scripts that run in under a second. A module lists its runs as
`Pair`s; a module-scoped fixture calls `run_pairs`, which runs the pairs of the tests
selected in this session together (`dp2ddp.verify.pairs.verify_pairs`: each pair in a child
forked after the imports, judged from its own records as `verify` judges it), and each test
reads its pair's report with `report_of`, which also asserts that the pair's run left nothing
in its temporary folder. Keep a run of its own where the test is about the run itself (the
command line, a rank that crashes and so ends the launch, a hang, `--to-end`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
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
    options: dict[str, Any] = field(default_factory=dict)  # VerifyConfig's other fields


@dataclass(frozen=True)
class Shared:
    report: VerifyReport
    left: list[Path]  # what the pair's run left in its temporary folder (nothing)


def run_pairs(
    request: pytest.FixtureRequest, root: Path, pairs: dict[str, Pair], timeout: float = 300.0
) -> dict[str, Shared]:
    """The reports of the pairs whose test is selected, each run in root/<key>."""
    selected = {
        getattr(item, "originalname", item.name)
        for item in request.session.items
        if getattr(item, "module", None) is request.module
    }
    keys = [key for key, pair in pairs.items() if pair.test in selected]
    configs = []
    for key in keys:
        pair = pairs[key]
        folder = root / key
        (folder / "tmp").mkdir(parents=True)
        options = {"timeout": timeout, **pair.options}
        configs.append(
            VerifyConfig(
                pair.original,
                pair.migrated,
                script_args=pair.script_args,
                cwd=folder,
                temp_root=folder / "tmp",
                **options,
            )
        )
    if not configs:
        return {}
    reports = verify_pairs(configs)
    return {
        key: Shared(report, list((root / key / "tmp").iterdir()))
        for key, report in zip(keys, reports, strict=True)
    }


def report_of(shared: dict[str, Shared], key: str) -> VerifyReport:
    """The pair's report; its run left no temporary files behind."""
    assert shared[key].left == [], "temporary files left behind"
    return shared[key].report
