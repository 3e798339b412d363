"""`dp2ddp.migrate.review`: the Markdown a reviewer pastes into a pull request."""

from __future__ import annotations

from pathlib import Path

from dp2ddp import MigrateOptions, migrate_source
from dp2ddp.codes import CODES
from dp2ddp.launch.scripts import default_launch_commands
from dp2ddp.migrate.review import MIGRATE_HEADING, append_section, render_markdown
from dp2ddp.result import Change, Diagnostic, FileOutcome, MigrationResult

DP_SCRIPT = """\
import torch
import torch.nn as nn


def main():
    model = nn.Linear(4, 2)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    return model
"""


def _outcomes() -> list[FileOutcome]:
    migrated = migrate_source(DP_SCRIPT, filename="train.py")
    assert migrated.changes, "the example script must be migrated"
    flagged = MigrationResult(
        "x = 1\n",
        "x = 1\n",
        diagnostics=(Diagnostic(3, 5, "DP003", CODES["DP003"][0]),),
    )
    return [
        FileOutcome("train.py", "migrated", migrated),
        FileOutcome("utils.py", "unchanged", migrate_source("x = 1\n")),
        FileOutcome("old_ddp.py", "unchanged", flagged),
        FileOutcome("broken.py", "failed", None, "broken.py:2:1: error: cannot parse: bad"),
    ]


def test_report_lists_every_change_and_warning() -> None:
    outcomes = _outcomes()
    text = render_markdown(outcomes, MigrateOptions(), default_launch_commands(["train.py"]))
    assert text.startswith(MIGRATE_HEADING + "\n")
    assert "1 migrated, 2 unchanged, 1 failed; 1 warning to review" in text
    assert "#### `train.py`: migrated" in text
    for change in outcomes[0].result.changes:  # type: ignore[union-attr]
        assert f"- line {change.line} ({change.transform}): {change.description}" in text
    assert "utils.py" not in text  # unchanged without a warning: counted, not listed
    assert "1 file unchanged (no DataParallel), not listed." in text
    assert "#### `old_ddp.py`: unchanged (see warnings)" in text
    title, explanation = CODES["DP003"]
    assert f"- line 3:5 **DP003** {title}. {explanation}" in text
    assert "#### `broken.py`: failed, left untouched" in text
    assert "- broken.py:2:1: error: cannot parse: bad" in text  # one "error:"
    assert "```bash\ntorchrun --standalone --nproc_per_node=auto train.py\n```" in text
    assert "`batch_size // WORLD_SIZE`" in text  # the default policy
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_report_changes_are_in_line_order_and_single_line() -> None:
    twice = Change("devices", 5, ".cuda() -> .to(DEVICE)")
    changes = (Change("data", 9, "two\nlines"), twice, Change("model", 2, "first"), twice)
    result = MigrationResult("a", "b", changes=changes)
    text = render_markdown([FileOutcome("t.py", "migrated", result)], MigrateOptions(), [])
    assert text.index("- line 2 (model): first") < text.index("- line 9 (data): two lines")
    assert "- line 5 (devices): .cuda() -> .to(DEVICE) (2×)\n" in text
    assert "nothing to launch" in text


def test_report_of_a_large_repository_stays_under_githubs_limit() -> None:
    """Unchanged files are one line; long change lists fold; past the limit, files are
    counted instead of listed (GitHub refuses a PR body over 65,536 characters)."""
    changes = tuple(Change("devices", i, f".cuda() -> .to(DEVICE) #{i}") for i in range(1, 40))
    warned = tuple(Diagnostic(i, 1, "DP003", CODES["DP003"][0]) for i in range(1, 4))
    result = MigrationResult("a", "b", diagnostics=warned, changes=changes)
    outcomes = [FileOutcome(f"pkg/train_{i}.py", "migrated", result) for i in range(200)]
    outcomes += [FileOutcome(f"pkg/util_{i}.py", "unchanged", None) for i in range(500)]
    text = render_markdown(outcomes, MigrateOptions(), [])
    assert len(text) < 65_536 - 5_000
    assert "<details>\n<summary>39 changes</summary>" in text
    assert "500 files unchanged (no DataParallel), not listed." in text
    assert "util_" not in text
    shown = text.count("#### `pkg/train_")
    assert 0 < shown < 200
    assert f"{200 - shown} more files not shown" in text


def test_report_batch_policy_follows_the_options() -> None:
    options = MigrateOptions(per_process_batch=True, sync_batchnorm=True)
    text = render_markdown([], options, [])
    assert "`--per-process-batch`" in text
    assert "`batch_size * WORLD_SIZE`" in text
    assert "`batch_size // WORLD_SIZE`" not in text
    assert "SyncBatchNorm" in text
    assert "SyncBatchNorm" not in render_markdown([], MigrateOptions(), [])


def test_append_section_creates_appends_and_replaces(tmp_path: Path) -> None:
    report = tmp_path / "report.md"
    migrate_v1 = f"{MIGRATE_HEADING}\n\nfirst run\n```bash\n## not a heading\n```\n"
    append_section(report, migrate_v1)
    assert report.read_text() == migrate_v1
    append_section(report, "## dp2ddp verify\n\nparity: ok\n")
    append_section(report, f"{MIGRATE_HEADING}\n\nsecond run\n")  # replaces in place
    assert report.read_text() == (
        f"{MIGRATE_HEADING}\n\nsecond run\n\n## dp2ddp verify\n\nparity: ok\n"
    )
    append_section(report, "## dp2ddp verify\n\nparity: FAILED")
    assert report.read_text() == (
        f"{MIGRATE_HEADING}\n\nsecond run\n\n## dp2ddp verify\n\nparity: FAILED\n"
    )


def test_append_section_keeps_user_text(tmp_path: Path) -> None:
    report = tmp_path / "pr.md"
    report.write_text("Notes by hand, no newline")
    append_section(report, "## dp2ddp verify\n\nok\n")
    assert report.read_text() == "Notes by hand, no newline\n\n## dp2ddp verify\n\nok\n"
