"""`verify_pairs`' bookkeeping without a launch: each pair's share of the shared runs, and the
child's environment and search path (dp2ddp/verify/pairs.py, pairs_runner.py). The shared
runs themselves are exercised by tests/test_verify.py, test_fidelity_e2e.py and
test_data_randomness_e2e.py."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from dp2ddp.verify import launch, pairs_runner, protocol, toend
from dp2ddp.verify.pairs import _Pair, _result
from dp2ddp.verify.session import Plan, Scripts

PLAN = Plan(2, "gloo", None)


def _pair(workdir: Path) -> _Pair:
    script = workdir / "a.py"
    scripts = Scripts(script, script, script, "a.py", "", "")
    return _Pair(None, workdir, scripts, [])  # type: ignore[arg-type]


def _exit(workdir: Path, name: str, rank: int, code: int, timed_out: bool = False) -> None:
    out = workdir / name
    out.mkdir(parents=True, exist_ok=True)
    record = {"code": code, "seconds": 1.5, "timed_out": timed_out}
    (out / pairs_runner.EXIT_FILE.format(rank=rank)).write_text(json.dumps(record))


def _stopped(workdir: Path, name: str, rank: int) -> None:
    folder = workdir / name / protocol.rank_dir_name(rank)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / protocol.PROGRESS).write_text(json.dumps({"status": protocol.STOPPED}))


WHOLE = launch.RunResult(launch.MIGRATED, 1, 9.0, log_tail="torchrun: worker failed")


def test_a_pair_the_launch_never_reached_is_cancelled(tmp_path: Path) -> None:
    """A pair after a failed one has no exit record: cancelled, which verify reports FAILED
    ("a run was cancelled"), never as a run that passed."""
    result = _result(_pair(tmp_path), launch.MIGRATED, PLAN, WHOLE)
    assert result.cancelled and not result.ok and result.returncode is None


def test_a_pair_whose_ranks_stopped_is_complete(tmp_path: Path) -> None:
    for rank in (0, 1):
        _exit(tmp_path, launch.MIGRATED, rank, 0)
        _stopped(tmp_path, launch.MIGRATED, rank)
    result = _result(_pair(tmp_path), launch.MIGRATED, PLAN, WHOLE)
    assert result.ok and result.complete and result.returncode == 0
    assert result.seconds == 1.5 and result.log_tail == ""  # the launch's log is another's


def test_a_failed_rank_fails_its_pair_as_torchrun_would(tmp_path: Path) -> None:
    _exit(tmp_path, launch.MIGRATED, 0, 0)
    _exit(tmp_path, launch.MIGRATED, 1, 3)
    result = _result(_pair(tmp_path), launch.MIGRATED, PLAN, WHOLE)
    assert not result.ok and result.returncode == 1
    assert result.log_tail == WHOLE.log_tail
    original = launch.RunResult(launch.ORIGINAL, 1, 9.0)
    _exit(tmp_path, launch.ORIGINAL, 0, -9)
    assert _result(_pair(tmp_path), launch.ORIGINAL, PLAN, original).returncode == -9


def test_a_to_end_pairs_exits_are_its_own(tmp_path: Path) -> None:
    """--to-end (stop 60): saved records do not make the run complete (its exits are
    checked, as in verify's own --to-end run), and its failed ranks' codes are read as
    torchrun's summary gives them, after the shared launch's own summary (its ranks' exit 1
    when they ended the launch)."""
    for rank in (0, 1):
        _stopped(tmp_path, launch.MIGRATED, rank)
    _exit(tmp_path, launch.MIGRATED, 0, 0)
    _exit(tmp_path, launch.MIGRATED, 1, -6)
    whole = launch.RunResult(launch.MIGRATED, 1, 9.0, log_tail="  rank      : 1\n  exitcode  : 1\n")
    result = _result(_pair(tmp_path), launch.MIGRATED, PLAN, whole, to_end=True)
    assert not result.complete and not result.ok and result.returncode == 1
    assert toend.torchrun_exit_codes(result.log_tail) == {1: -6}
    _exit(tmp_path, launch.MIGRATED, 1, 0)
    result = _result(_pair(tmp_path), launch.MIGRATED, PLAN, WHOLE, to_end=True)
    assert result.ok and not result.complete and result.log_tail == ""


def test_a_pair_past_its_timeout_is_timed_out(tmp_path: Path) -> None:
    _exit(tmp_path, launch.MIGRATED, 0, -9, timed_out=True)
    result = _result(_pair(tmp_path), launch.MIGRATED, PLAN, WHOLE)
    assert result.timed_out and not result.ok


def test_the_child_takes_its_pairs_environment_folder_and_search_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the launcher added stays (RANK...), the pair's own values replace the base's, its
    PYTHONPATH folders replace the base's on sys.path, and it reads its pair's own store."""
    base = {"PYTHONPATH": str(tmp_path / "old"), "KEEP": "base", "HOME": "/home"}
    pair = {
        "env": {"PYTHONPATH": "new", "KEEP": "pair", "HOME": "/home"},
        "cwd": str(tmp_path),
    }
    launched = {"RANK": "1", "TORCHELASTIC_USE_AGENT_STORE": "True", "MASTER_PORT": "1"}
    environ = {**base, **launched}
    monkeypatch.setattr(os, "environ", dict(environ))
    monkeypatch.setattr(sys, "path", ["", str(tmp_path / "old"), "/stdlib"])
    monkeypatch.setattr(os, "chdir", lambda folder: None)
    pairs_runner._enter(pair, base, str(tmp_path), 4321)
    assert os.environ == {
        "PYTHONPATH": "new", "KEEP": "pair", "HOME": "/home", "RANK": "1",
        "TORCHELASTIC_USE_AGENT_STORE": "True", "MASTER_PORT": "4321",
    }  # fmt: skip
    assert sys.path == ["", str(tmp_path / "new"), "/stdlib"]


def test_rank_zero_hosts_a_store_of_the_pairs_own(tmp_path: Path) -> None:
    """A fresh store per pair (the migration's ddp_rank0_value keys, the process group's):
    its port in PORT_FILE, readable by a client as torchrun's agent store is."""
    from datetime import timedelta

    import torch.distributed as dist

    pid = pairs_runner._serve_store(tmp_path)
    try:
        pairs_runner._wait_for(tmp_path / pairs_runner.PORT_FILE, "port", 60.0)
        port = int((tmp_path / pairs_runner.PORT_FILE).read_text())
        client = dist.TCPStore(  # type: ignore[attr-defined]  # public, not re-exported
            "localhost", port, is_master=False, timeout=timedelta(seconds=30)
        )
        client.set("key", "value")
        assert client.get("key") == b"value"
    finally:
        pairs_runner._end(pid)
