"""Run directories made on every rank (issue 10 item 2): the helpers ddp_mkdir and
ddp_rank0_value at run time, and which reads the rank_zero pass shares from rank 0.

The golden fixtures (rank_zero_run_dir, program_fixtures/config_run_dir) show the rewrite;
tests/test_rank_zero_e2e.py runs it under torchrun (a config that makes its time-stamped run
directory before ddp_setup(), rank 1 a second late).
"""

from __future__ import annotations

import os
import sysconfig
import threading
import time
import warnings
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

import pytest
import torch.distributed as dist

from dp2ddp import migrate_source
from dp2ddp.templating import render
from dp2ddp.transforms._support.runtime import helper_closure


def _helper(name: str, rank: int, world_size: int = 2) -> Any:
    """templates/helpers/<name>.py.j2 as a migrated script defines it, on `rank`."""
    namespace: dict[str, Any] = {
        "os": os,
        "dist": dist,
        "warnings": warnings,
        "RANK": rank,
        "WORLD_SIZE": world_size,
    }
    for helper in helper_closure([name]):  # with those it calls (ddp_call_key)
        exec(compile(render(f"helpers/{helper}.py.j2"), helper, "exec"), namespace)
    return namespace[f"ddp_{name}"]


def test_rank_zero_keeps_the_programs_exist_ok(tmp_path: Path) -> None:
    """exist_ok=False protects an existing run: on rank 0 it still raises."""
    make = _helper("mkdir", rank=0)
    run = tmp_path / "models" / "run"
    make(run.mkdir, parents=True, exist_ok=False)
    assert run.is_dir()
    with pytest.raises(FileExistsError):
        make(run.mkdir, parents=True, exist_ok=False)


def test_other_ranks_wait_for_rank_zeros_directory(tmp_path: Path) -> None:
    """Rank 1 makes nothing: rank 0's mkdir(exist_ok=False), 0.3 s later, does not race it."""
    make = _helper("mkdir", rank=1)
    run = tmp_path / "models" / "run"
    failures: list[BaseException] = []

    def rank_zero() -> None:
        time.sleep(0.3)
        try:
            run.mkdir(parents=True, exist_ok=False)
        except OSError as error:
            failures.append(error)

    thread = threading.Thread(target=rank_zero)
    thread.start()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make(os.makedirs, str(run), exist_ok=False)
    thread.join()
    assert run.is_dir() and not failures


def test_a_directory_rank_zero_never_makes_is_made_with_a_warning(tmp_path: Path) -> None:
    """A path that differs on this rank: no hang, a warning, and the directory exists."""
    make = _helper("mkdir", rank=1)
    run = tmp_path / "models" / "other"
    with pytest.warns(UserWarning, match=r"rank 1: directory .* not made by rank 0 within 0.2 s"):
        make(run.mkdir, parents=True, exist_ok=False, ddp_wait_s=0.2)
    assert run.is_dir()


def test_rank0_value_is_rank_zeros_through_the_rendezvous_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The store torchrun's agent hosts: rank 1 gets rank 0's n-th reading, call by call."""
    store = dist.TCPStore  # type: ignore[attr-defined]  # public, not re-exported in stubs
    server = store("127.0.0.1", 0, is_master=True, wait_for_workers=False)
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", str(server.port))
    monkeypatch.setenv("TORCHELASTIC_USE_AGENT_STORE", "True")
    clock = count()
    zero, one = _helper("rank0_value", rank=0), _helper("rank0_value", rank=1)

    def read(share: Any) -> int:
        return int(share(next, clock))  # one call site for both ranks

    # one call path for both ranks too (the key is the whole path: ddp_call_key)
    readings = [[read(share), read(share)] for share in (zero, one)]
    assert readings == [[0, 1], [0, 1]]  # rank 1's own readings were 2 and 3
    assert next(clock) == 4


def test_rank0_value_pairs_calls_along_the_same_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop 41's v2-D class: a reading function called from a statement only rank 0 runs (a
    file rank 0 writes) and from one every rank runs. Keyed by its own line, rank 1's first
    call took rank 0's first value (the other statement's); keyed by the call path, it takes
    rank 0's value for the same statement."""
    store = dist.TCPStore  # type: ignore[attr-defined]  # public, not re-exported in stubs
    server = store("127.0.0.1", 0, is_master=True, wait_for_workers=False)
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", str(server.port))
    monkeypatch.setenv("TORCHELASTIC_USE_AGENT_STORE", "True")
    clock = count()
    shares = {0: _helper("rank0_value", rank=0), 1: _helper("rank0_value", rank=1)}

    def run_name(rank: int) -> int:
        return int(shares[rank](next, clock))

    def program(rank: int) -> list[int]:
        names = []
        if rank == 0:  # the migration's guard of rank 0's file
            names.append(run_name(rank))
        names.append(run_name(rank))  # every rank
        return names

    assert [program(rank) for rank in (0, 1)] == [[0, 1], [1]]


def test_rank0_value_pairs_calls_through_a_library_that_walks_apart_by_rank(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Stop 57's v3-B: the key leaves out frames of installed code. A progress bar the
    migration disables on ranks other than 0 walks its iterable through another of its
    lines there (tqdm's `if self.disable: yield from iterable`): keyed by those lines too,
    rank 1 waited 60 s for a value rank 0 set under another key, then kept its own draws.
    The library is a code object compiled under the installed packages' folder."""
    store = dist.TCPStore  # type: ignore[attr-defined]  # public, not re-exported in stubs
    server = store("127.0.0.1", 0, is_master=True, wait_for_workers=False)
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", str(server.port))
    monkeypatch.setenv("TORCHELASTIC_USE_AGENT_STORE", "True")
    bar = "def walk(items, disable):\n    if disable:\n        yield from items\n        return\n"
    bar += "    for item in items:\n        yield item\n"
    library: dict[str, Any] = {}
    installed = os.path.join(sysconfig.get_paths()["purelib"], "progressbar_standin.py")
    exec(compile(bar, installed, "exec"), library)
    clock = count()
    shares = {0: _helper("rank0_value", rank=0), 1: _helper("rank0_value", rank=1)}

    def batches(rank: int) -> Iterator[int]:  # a sampler drawing as the bar pulls
        yield int(shares[rank](next, clock))

    def draws(rank: int) -> list[int]:
        return list(library["walk"](batches(rank), rank != 0))

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "did not come"
        assert [draws(rank) for rank in (0, 1)] == [[0], [0]]


def test_rank0_value_without_the_store_keeps_its_own_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TORCHELASTIC_USE_AGENT_STORE", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _helper("rank0_value", rank=0)(lambda: "a") == "a"
        assert _helper("rank0_value", rank=0, world_size=1)(lambda: "a") == "a"
    with pytest.warns(UserWarning, match="rank 1: rank 0's value of .* did not come"):
        assert _helper("rank0_value", rank=1)(lambda: "b") == "b"


@pytest.mark.parametrize(
    ("line", "shared"),
    [
        ("os.makedirs(f\"runs/{time.strftime('%H%M%S')}\", exist_ok=True)", True),
        ("stamp = datetime.now().isoformat()\n    os.makedirs(stamp)", True),
        ("run = uuid.uuid4().hex\n    Path('out', run).mkdir(parents=True)", True),
        ("seed = random.randint(0, 9)\n    os.makedirs('runs', exist_ok=True)", False),
        ("start = time.time()\n    os.makedirs(args.out, exist_ok=True)", False),
        ("args.run = str(time.time())\n    os.makedirs(other.run)", False),
    ],
)
def test_reads_naming_a_directory_are_shared(line: str, shared: bool) -> None:
    source = (
        "import os, random, time, uuid\nfrom datetime import datetime\nfrom pathlib import Path\n"
        "import torch\n\n\ndef main(args, other):\n"
        f"    {line}\n    model = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n"
    )
    code = migrate_source(source, filename="train.py").code
    assert ("ddp_rank0_value(" in code.split("def main", 1)[1]) is shared, code
