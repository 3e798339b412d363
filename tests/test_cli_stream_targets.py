"""`dp2ddp migrate -o STREAM`: a device, a FIFO or /dev/stdout is written through, never
replaced by a file, and gets the single-file form (helpers inline): nothing is put beside
it (stop 53 s4 saw `-o /dev/null` write `/dev/_dp2ddp.py`, and the device renamed over)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dp2ddp.cli import main
from dp2ddp.migrate.atomic import is_stream, write_atomic

DP = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "model = nn.DataParallel(nn.Linear(4, 2))\n"
    "print(model(torch.ones(2, 4)).shape)\n"
)
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["migrate", *args], catch_exceptions=False)


def _read_fifo(fifo: Path) -> tuple[threading.Thread, list[bytes]]:
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as handle:
            got.append(handle.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, got


@needs_fifo
def test_output_to_a_fifo_is_written_through_with_the_helpers_inline(tmp_path: Path) -> None:
    train = tmp_path / "train.py"
    train.write_text(DP)
    out = tmp_path / "out"
    out.mkdir()
    fifo = out / "migrated.fifo"
    os.mkfifo(fifo)
    reader, got = _read_fifo(fifo)
    result = run(str(train), "-o", str(fifo))
    reader.join(timeout=30)
    assert result.exit_code == 0, result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # not a plain file renamed over it
    assert got and b"DistributedDataParallel" in got[0]
    assert b"def ddp_setup():" in got[0] and b"from _dp2ddp import" not in got[0]
    compile(got[0], "migrated", "exec")
    assert sorted(p.name for p in out.iterdir()) == ["migrated.fifo"]  # nothing beside it
    assert not (tmp_path / "_dp2ddp.py").exists() and train.read_text() == DP
    assert f"migrated {train} -> {fifo}" in result.stderr
    assert "torchrun" not in result.stderr  # a stream is no script to launch


def test_output_to_dev_stdout_is_the_code_and_nothing_lands_in_dev(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(DP)
    beside = "/dev/_dp2ddp.py"
    before = os.path.exists(beside) and os.stat(beside).st_mtime_ns
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-m", "dp2ddp", "migrate", "-o", "/dev/stdout", "train.py"],
        cwd=tmp_path,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert b"def ddp_setup():" in done.stdout and b"from _dp2ddp import" not in done.stdout
    compile(done.stdout, "migrated", "exec")
    assert (os.path.exists(beside) and os.stat(beside).st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


def test_an_unwritable_stream_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(DP)
    closed = "/dev/fd/987"  # no such descriptor: nothing may be created for it
    if not os.path.isdir("/dev/fd") or os.path.exists(closed):
        pytest.skip("no /dev/fd here")
    result = run(str(tmp_path / "train.py"), "-o", closed)
    assert result.exit_code == 2
    assert f"{closed}:1:1: error: cannot write" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


@needs_fifo
def test_write_atomic_writes_through_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "report.fifo"  # --report /dev/null and the like take this path
    os.mkfifo(fifo)
    reader, got = _read_fifo(fifo)
    write_atomic(str(fifo), b"# report\n")
    reader.join(timeout=30)
    assert got == [b"# report\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.fifo"]


def test_which_paths_are_streams(tmp_path: Path) -> None:
    assert not is_stream(str(tmp_path / "out.py"))  # a new file in a folder
    assert not is_stream(str(tmp_path))
    if os.name == "posix":
        assert is_stream("/dev/stdout") and is_stream("/dev/null") and is_stream("/dev/fd/1")
        assert not is_stream("/dev/shm/train.py")  # a folder under /dev holds plain files
