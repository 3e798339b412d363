"""The `dp2ddp migrate` command-line contract: paths, modes, output streams, exit codes."""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from dp2ddp import MigrateOptions, MigrationResult
from dp2ddp.cli import main
from dp2ddp.commands import progress
from dp2ddp.migrate import files as runner_module
from dp2ddp.migrate import migrate_source as engine
from dp2ddp.migrate.atomic import write_atomic
from dp2ddp.migrate.migrate_source import migrate_parsed
from dp2ddp.migrate.parse import parse
from dp2ddp.result import FileOutcome

DP = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "model = nn.Linear(4, 2)\n"
    "if torch.cuda.device_count() > 1:\n"
    "    model = nn.DataParallel(model)\n"
)
PLAIN = "import torch\r\n\r\nmodel = torch.nn.Linear(4, 2)  # CRLF, untouched\r\n"
ERROR_LINE = re.compile(r"^\S.*:\d+:\d+: error: \S.*$")


def run(*args: str, input: bytes | None = None) -> Result:
    return CliRunner().invoke(main, ["migrate", *args], input=input, catch_exceptions=False)


def _write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode())
    return path


def _errors(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if ": error: " in line]


# -- in place ---------------------------------------------------------------------------------
def test_migrates_in_place_and_prints_summary_then_launch(tmp_path: Path) -> None:
    train = _write(tmp_path, "train.py", DP)
    plain = _write(tmp_path, "plain.py", PLAIN)
    result = run(str(train), str(plain))
    assert result.exit_code == 0, result.stderr
    assert train.read_text() != DP
    assert plain.read_bytes() == PLAIN.encode()  # byte for byte, CRLF included
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert f"migrated {train}" in lines
    assert f"created {tmp_path / '_dp2ddp.py'}" in lines  # the helpers, beside it
    summary = lines.index("1 file migrated, 1 created, 1 unchanged.")
    launch = next(i for i, line in enumerate(lines) if line.startswith("  torchrun "))
    assert summary < launch and str(train) in lines[launch]
    compile(train.read_text(), str(train), "exec")


def test_running_on_its_own_output_changes_nothing(tmp_path: Path) -> None:
    train = _write(tmp_path, "train.py", DP)
    assert run(str(train)).exit_code == 0
    once = train.read_bytes()
    again = run(str(train))
    assert again.exit_code == 0 and "2 files unchanged." in again.stderr  # with _dp2ddp.py
    assert train.read_bytes() == once
    assert run("--check", str(train)).exit_code == 0


def test_folder_walk_with_exclude_and_default_skips(tmp_path: Path) -> None:
    a = _write(tmp_path, "pkg/a.py", DP)
    skipped = [
        _write(tmp_path, "pkg/gen/b.py", DP),
        _write(tmp_path, ".venv/lib/c.py", DP),
        _write(tmp_path, "build/d.py", DP),
        _write(tmp_path, "notes.txt", DP),
    ]
    result = run("--exclude", "gen", str(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert a.read_text() != DP
    assert all(p.read_text() == DP for p in skipped)
    assert "1 file migrated, 1 created." in result.stderr  # a.py and pkg/_dp2ddp.py


def test_jobs_in_parallel_match_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner_module, "POOL_MIN_CHARS_FORK", 0)
    monkeypatch.setattr(runner_module, "POOL_MIN_CHARS_SPAWN", 0)
    for i in range(4):
        _write(tmp_path / "par", f"t{i}.py", DP + "\n" * i)
        _write(tmp_path / "ser", f"t{i}.py", DP + "\n" * i)
    assert run("--jobs", "2", str(tmp_path / "par")).exit_code == 0
    assert run("--jobs", "1", str(tmp_path / "ser")).exit_code == 0
    for i in range(4):
        par = (tmp_path / "par" / f"t{i}.py").read_text()
        assert par == (tmp_path / "ser" / f"t{i}.py").read_text() != DP + "\n" * i


def test_options_reach_the_codemod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[MigrateOptions | None] = []

    def spy(source: str, options: MigrateOptions | None = None, **context: Any) -> MigrationResult:
        seen.append(options)
        return migrate_parsed(parse(source), source, options, **context)  # not via the spy

    def spy_parsed(
        tree: Any, source: str, options: MigrateOptions | None = None, **context: Any
    ) -> MigrationResult:
        seen.append(options)
        return migrate_parsed(tree, source, options, **context)

    # A file of a program goes through migrate_parsed (its tree parsed once by the project
    # model), a lone file through migrate_source: the options must reach either.
    # (patched in the engine's module: the runner imports the engine when a file needs it)
    monkeypatch.setattr(engine, "migrate_source", spy)
    monkeypatch.setattr(engine, "migrate_parsed", spy_parsed)
    train = _write(tmp_path, "train.py", DP)
    result = run("-j", "1", "--per-process-batch", "--sync-batchnorm", str(train))
    assert result.exit_code == 0, result.stderr
    assert [(o.per_process_batch, o.sync_batchnorm) for o in seen if o] == [(True, True)]
    assert len(seen) == 1
    assert "--per-process-batch" in result.stderr and "global batch" in result.stderr


# -- --check, --diff, -o, stdin ---------------------------------------------------------------
def test_check_writes_nothing_and_exits_1(tmp_path: Path) -> None:
    train = _write(tmp_path, "train.py", DP)
    plain = _write(tmp_path, "plain.py", PLAIN)
    result = run("--check", str(train), str(plain))
    assert result.exit_code == 1
    assert train.read_text() == DP
    assert f"would migrate {train}" in result.stderr
    assert f"would create {tmp_path / '_dp2ddp.py'}" in result.stderr
    assert "1 file would be migrated, 1 would be created, 1 unchanged." in result.stderr
    assert not (tmp_path / "_dp2ddp.py").exists()
    assert run("--check", str(plain)).exit_code == 0


@pytest.mark.parametrize(
    ("source", "code"),
    [
        # only a project wrapper (vendored sync-BN): warned, nothing to rewrite
        (
            "from sync_batchnorm import DataParallelWithCallback\n"
            "model = DataParallelWithCallback(build())\n",
            "DP002",
        ),
        # DataParallel that may come from a project's star import
        ("from nets.builder import *\nnet = DataParallel(build())\n", "DP016"),
        # DataParallel by hand, no DataParallel named (facebookresearch/dlrm; issue 22 item 3)
        (
            "from torch.nn.parallel.parallel_apply import parallel_apply\n"
            "from torch.nn.parallel.replicate import replicate\n"
            "outputs = parallel_apply(replicate(net, [0, 1]), inputs)\n",
            "DP002",
        ),
    ],
)
def test_check_fails_on_a_file_left_with_dataparallel(
    tmp_path: Path, source: str, code: str
) -> None:
    """Never silent: unchanged, warned, and --check (the pre-commit hook) exits 1."""
    train = _write(tmp_path, "train.py", source)
    result = run("--check", str(train))
    assert result.exit_code == 1, result.stderr
    assert f" {code} " in result.stderr
    assert "1 file unchanged." in result.stderr
    assert train.read_text() == source
    assert run(str(train)).exit_code == 0  # without --check: done, nothing written
    assert train.read_text() == source


def test_star_imported_torch_is_migrated(tmp_path: Path) -> None:
    """`torch` bound only by a project's star import (a module whose exports are unknown:
    stop 57 v4-C reads `torch.…` as torch there): the wrap is migrated, the imports it needs
    come after the star import, which nothing crosses (migrate/tidy.py); no `torch.` is left,
    so none of torch itself is added."""
    source = "from nets.builder import *\n\nnet = torch.nn.DataParallel(build())\n"
    train = _write(tmp_path, "train.py", source)
    assert run("--check", str(train)).exit_code == 1
    assert run(str(train)).exit_code == 0
    migrated = train.read_text()
    assert migrated.startswith("from nets.builder import *\n\n# isort: split\nfrom _dp2ddp import ")
    assert "\nfrom torch.nn.parallel import DistributedDataParallel\n" in migrated
    assert "torch.nn.DataParallel" not in migrated
    compile(migrated, str(train), "exec")
    assert "net = DistributedDataParallel(build().to(DEVICE), device_ids=DEVICE_IDS)" in migrated


def test_keep_summed_loss_flag(tmp_path: Path) -> None:
    source = DP + "loss = model(torch.ones(2, 4)).sum()\nloss.backward()\n"
    train = _write(tmp_path, "train.py", source)
    scaled = run("--diff", str(train))
    assert "+(loss * WORLD_SIZE).backward()" in scaled.stdout
    assert "note: summed loss multiplied by WORLD_SIZE" in scaled.stderr
    kept = run("--diff", "--keep-summed-loss", str(train))
    assert "WORLD_SIZE).backward()" not in kept.stdout
    assert "DP004" in kept.stderr and "note: summed loss" not in kept.stderr


def test_diff_goes_to_stdout_and_writes_nothing(tmp_path: Path) -> None:
    train = _write(tmp_path, "train.py", DP)
    result = run("--diff", str(train))
    assert result.exit_code == 0
    assert train.read_text() == DP
    assert result.stdout.startswith(f"--- {train}\t(original)\n+++ {train}\t(migrated)\n")
    assert "\n-    model = nn.DataParallel(model)\n" in result.stdout
    assert "\x1b[" not in result.stdout  # not a terminal: plain
    assert "would be migrated" in result.stderr
    assert run("--diff", "--check", str(train)).exit_code == 1


def test_diff_colour_can_be_forced(tmp_path: Path) -> None:
    train = _write(tmp_path, "train.py", DP)
    coloured = run("--diff", "--color", str(train)).stdout
    assert "\x1b[31m-    model = nn.DataParallel(model)\x1b[0m" in coloured  # red removal
    assert re.search(r"\x1b\[32m\+.*DistributedDataParallel", coloured)  # green addition
    assert "\x1b[1m--- " in coloured  # bold header
    assert "\x1b[" not in run("--diff", "--no-color", str(train)).stdout


def test_stdin_to_stdout(tmp_path: Path) -> None:
    result = run("-", input=DP.encode())
    assert result.exit_code == 0
    assert "DistributedDataParallel" in result.stdout
    assert "DistributedDataParallel" not in result.stderr
    assert "1 file migrated." in result.stderr
    # No folder to put a helpers module in: the single-file form, self-contained.
    assert "def ddp_setup():" in result.stdout and "_dp2ddp" not in result.stdout
    unchanged = run("-", input=PLAIN.encode())
    assert unchanged.stdout_bytes == PLAIN.encode()
    check = run("--check", "-", input=DP.encode())
    assert check.exit_code == 1 and check.stdout == ""


def test_stdin_error_prints_nothing_to_stdout() -> None:
    result = run("-", input=b"import torch.nn as nn\nm = nn.DataParallel(m\n")
    assert result.exit_code == 2
    assert result.stdout == ""
    (error,) = _errors(result)
    assert error.startswith("<stdin>:")


def test_output_file(tmp_path: Path) -> None:
    train = _write(tmp_path, "train.py", DP)
    train.chmod(0o755)
    out = tmp_path / "train_ddp.py"
    result = run(str(train), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert train.read_text() == DP
    assert "DistributedDataParallel" in out.read_text()
    assert out.stat().st_mode & 0o777 == 0o755
    assert f"migrated {train} -> {out}" in result.stderr
    (launch,) = [line for line in result.stderr.splitlines() if line.startswith("  torchrun ")]
    assert launch.endswith(str(out))
    helpers = tmp_path / "_dp2ddp.py"  # beside the output: what it imports
    assert "from _dp2ddp import" in out.read_text() and helpers.is_file()
    compile(helpers.read_text(), str(helpers), "exec")
    to_stdout = run(str(train), "-o", "-")
    assert to_stdout.exit_code == 0 and "DistributedDataParallel" in to_stdout.stdout
    assert "def ddp_setup():" in to_stdout.stdout  # stdout: the single-file form
    assert train.read_text() == DP and not (tmp_path / "-").exists()
    plain = _write(tmp_path, "plain.py", PLAIN)
    copy = tmp_path / "copy.py"
    assert run(str(plain), "--output", str(copy)).exit_code == 0
    assert copy.read_bytes() == PLAIN.encode()


@pytest.mark.parametrize(
    "args",
    [
        ["a.py", "b.py", "-o", "out.py"],
        ["a.py", "-o", "out.py", "--check"],
        ["a.py", "-o", "out.py", "--diff"],
        ["-", "a.py"],
        ["--jobs", "0", "a.py"],
        ["--no-such-option", "a.py"],
        [],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    assert run(*args).exit_code == 2


def test_output_needs_a_file_not_a_folder(tmp_path: Path) -> None:
    _write(tmp_path, "pkg/a.py", DP)
    result = run(str(tmp_path / "pkg"), "-o", str(tmp_path / "out.py"))
    assert result.exit_code == 2
    (error,) = _errors(result)
    assert ERROR_LINE.match(error) and "is a directory" in error
    assert not (tmp_path / "out.py").exists()
    train = _write(tmp_path, "train.py", DP)
    into_folder = run(str(train), "-o", str(tmp_path / "pkg"))
    assert into_folder.exit_code == 2 and "cannot write" in into_folder.stderr


# -- bad input --------------------------------------------------------------------------------
BAD_INPUTS: dict[str, bytes] = {
    "py2.py": b"import torch.nn as nn\nm = nn.DataParallel(m)\nx = y.cuda(async=True)\n",
    "latin.py": b"import torch.nn as nn\nm = nn.DataParallel(m)  # caf\xe9\n",
    "binary.py": b"import torch\x00\x01\x02\nnn.DataParallel\n",
    "cookie.py": b"# -*- coding: klingon -*-\nimport torch\n",
}


def test_each_bad_file_is_one_error_line_and_the_others_still_migrate(tmp_path: Path) -> None:
    bad = {name: _write(tmp_path, name, data) for name, data in BAD_INPUTS.items()}
    train = _write(tmp_path, "train.py", DP)
    loop = tmp_path / "loop.py"
    loop.symlink_to(loop)
    result = run(str(tmp_path), str(tmp_path / "missing.py"))
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    errors = _errors(result)
    assert len(errors) == len(BAD_INPUTS) + 2, result.stderr
    assert all(ERROR_LINE.match(line) for line in errors), errors
    for name, data in BAD_INPUTS.items():
        assert bad[name].read_bytes() == data
    assert train.read_text() != DP
    assert "1 file migrated, 1 created, 6 failed." in result.stderr  # train.py, its _dp2ddp.py
    assert any("py2.py:3:" in e for e in errors)
    assert any("latin.py:2:" in e and "decode" in e for e in errors)
    assert any("loop.py" in e and "loop" in e.split("error:")[1] for e in errors)
    assert any(e.endswith("missing.py:1:1: error: no such file or directory") for e in errors)


def test_read_only_file_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    train = _write(tmp_path, "train.py", DP)
    train.chmod(0o444)
    other = _write(tmp_path, "other.py", DP)
    result = run(str(train), str(other))
    assert result.exit_code == 2
    (error,) = _errors(result)
    assert error == f"{train}:1:1: error: cannot write: file is read-only"
    assert train.read_text() == DP and other.read_text() != DP


@pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() == 0, reason="root reads any file regardless of mode"
)
def test_unreadable_file(tmp_path: Path) -> None:  # pragma: no cover - not run as root
    train = _write(tmp_path, "train.py", DP)
    train.chmod(0)
    result = run(str(train))
    assert result.exit_code == 2
    assert _errors(result) == [f"{train}:1:1: error: cannot read: permission denied"]


def test_unreadable_file_simulated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs as root too: the read itself fails, as it would on a file without read access."""
    train = _write(tmp_path, "train.py", DP)
    real_open = open

    def guarded_open(file: object, mode: str = "r", *args: object, **kwargs: object) -> object:
        if str(file) == str(train):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", guarded_open)
    result = run(str(train))
    assert result.exit_code == 2
    assert _errors(result) == [f"{train}:1:1: error: cannot read: permission denied"]
    monkeypatch.undo()
    assert train.read_text() == DP


def test_nothing_to_do(tmp_path: Path) -> None:
    empty = _write(tmp_path, "empty.py", b"")
    (tmp_path / "no_python").mkdir()
    _write(tmp_path, "no_python/readme.md", "# hi\n")
    result = run(str(empty))
    assert result.exit_code == 0 and empty.read_bytes() == b""
    folder = run(str(tmp_path / "no_python"))
    assert folder.exit_code == 0
    assert "Nothing to do" in folder.stderr


def test_quiet_prints_only_errors(tmp_path: Path) -> None:
    train = _write(tmp_path, "train.py", DP)
    broken = _write(tmp_path, "broken.py", BAD_INPUTS["py2.py"])
    result = run("-q", str(train), str(broken))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == _errors(result) and len(_errors(result)) == 1
    solo = tmp_path / "solo"
    solo.mkdir()
    assert run("-q", str(_write(solo, "train.py", DP))).stderr == ""


def test_interrupt_is_reported_without_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _write(tmp_path, "a.py", DP)
    second = _write(tmp_path, "b.py", DP)
    calls: list[str] = []

    def interrupted(path: str, data: bytes) -> None:
        if calls:
            raise KeyboardInterrupt
        calls.append(path)
        write_atomic(path, data)

    monkeypatch.setattr("dp2ddp.program.write.write_atomic", interrupted)
    result = CliRunner().invoke(main, ["migrate", "-j", "1", str(first), str(second)])
    assert result.exit_code == 130
    assert "Aborted" in result.stderr and "Traceback" not in result.output
    assert first.read_text() != DP and second.read_text() == DP


# -- warnings and the report ------------------------------------------------------------------
def test_warnings_come_before_the_summary_in_the_linters_shape(tmp_path: Path) -> None:
    both = (
        "import torch.nn as nn\n"
        "from torch.nn.parallel import DistributedDataParallel\n"
        "m = nn.Linear(1, 1)\n"
        "if distributed:\n"
        "    m = DistributedDataParallel(m)\n"
        "else:\n"
        "    m = nn.DataParallel(m)\n"
    )
    path = _write(tmp_path, "mixed.py", both)
    result = run(str(path))
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    summary = lines.index("1 file unchanged.")
    warning = re.compile(rf"^{re.escape(str(path))}:\d+:\d+: DP\d{{3}} \S")
    warnings = [i for i, line in enumerate(lines) if warning.match(line)]
    assert warnings and max(warnings) < summary  # a file left alone still explains why
    assert summary == len(lines) - 1  # as ruff: the diagnostics, then the summary
    assert path.read_text() == both
    quiet = run("-q", str(path))  # ruff's -q: the warnings, without the summary
    assert quiet.stderr.splitlines() == [lines[i] for i in warnings]


def test_quiet_keeps_the_warnings_and_what_check_would_change(tmp_path: Path) -> None:
    train = _write(tmp_path, "train.py", DP.replace("(4, 2)", "(4, 2)\nbn = nn.BatchNorm1d(2)"))
    loud = run("--check", str(train))
    quiet = run("--check", "-q", str(train))
    assert loud.exit_code == quiet.exit_code == 1
    summary = "1 file would be migrated, 1 would be created."  # the helpers module
    assert summary in loud.stderr
    assert quiet.stderr.splitlines() == [
        line for line in loud.stderr.splitlines() if line != summary
    ]
    assert quiet.stderr.splitlines()[0] == f"would migrate {train}"
    assert any(
        re.match(rf"^{re.escape(str(train))}:5:6: DP008 ", x) for x in quiet.stderr.splitlines()
    )


def test_no_launch_line_when_nothing_is_written(tmp_path: Path) -> None:
    """--check (the pre-commit hook's command) and --diff write nothing: nothing to launch."""
    train = _write(tmp_path, "train.py", DP)
    for mode in ("--check", "--diff"):
        assert "torchrun" not in run(mode, str(train)).stderr
    written = run(str(train))
    assert "torchrun --standalone --nproc_per_node=auto" in written.stderr


def test_no_color_is_respected_by_diff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    train = _write(tmp_path, "train.py", DP)

    def diff(*args: str) -> str:
        runner = CliRunner()
        return runner.invoke(main, ["migrate", "--diff", *args, str(train)], color=True).stdout

    assert "\x1b[" in diff()  # a terminal: coloured
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in diff() and "+++ " in diff()
    assert "\x1b[" in diff("--color")  # the flag wins over the environment (no-color.org)


def test_report_option_calls_render_markdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[list[FileOutcome], object, list[str]]] = []

    def render_markdown(outcomes: list[FileOutcome], options: object, launch: list[str]) -> str:
        calls.append((outcomes, options, launch))
        return "# report\n"

    monkeypatch.setattr("dp2ddp.commands.migrate.render_markdown", render_markdown)
    train = _write(tmp_path, "train.py", DP)
    report = tmp_path / "review.md"
    result = run("--report", str(report), str(train))
    assert result.exit_code == 0, result.stderr
    assert report.read_text() == "# report\n"
    ((outcomes, _options, launch),) = calls
    assert [(os.path.basename(o.path), o.status) for o in outcomes] == [
        ("train.py", "migrated"),
        ("_dp2ddp.py", "migrated"),
    ]
    assert len(launch) == 1 and str(train) in launch[0]


def test_report_with_the_real_renderer(tmp_path: Path) -> None:
    pytest.importorskip("dp2ddp.migrate.review")
    train = _write(tmp_path, "train.py", DP)
    report = tmp_path / "review.md"
    result = run("--check", "--report", str(report), str(train))
    assert result.exit_code == 1
    assert "train.py" in report.read_text()


# -- progress bar -----------------------------------------------------------------------------
class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal_for_many_files() -> None:
    many = progress.MIN_FILES
    assert progress.wanted(_Terminal(), many, quiet=False)
    assert not progress.wanted(_Terminal(), many, quiet=True)
    assert not progress.wanted(_Terminal(), many - 1, quiet=False)
    assert not progress.wanted(io.StringIO(), many, quiet=False)
    screen = _Terminal()
    with progress.progress_bar(screen, many, quiet=False) as advance:
        assert advance is not None
        advance(many)
    assert f"{many}/{many}" in screen.getvalue()
    with progress.progress_bar(io.StringIO(), many, quiet=False) as nothing:
        assert nothing is None


def test_no_progress_output_when_piped(tmp_path: Path) -> None:
    for i in range(progress.MIN_FILES + 5):
        _write(tmp_path, f"f{i:02}.py", "x = 1\n")
    result = run(str(tmp_path))
    assert result.stderr == f"{progress.MIN_FILES + 5} files unchanged.\n"
