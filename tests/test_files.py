"""File handling under `migrate`: decoding, atomic writes, discovery, pre-check, the runner."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from dp2ddp import migrate_source
from dp2ddp.errors import InputError
from dp2ddp.migrate import files as runner_module
from dp2ddp.migrate import migrate_source as engine
from dp2ddp.migrate.atomic import write_atomic
from dp2ddp.migrate.discovery import discover
from dp2ddp.migrate.files import migrate_bytes, migrate_files, write_in_place
from dp2ddp.migrate.precheck import code_only, may_use_dataparallel
from dp2ddp.migrate.sourcefile import SourceFile, decode
from dp2ddp.options import MigrateOptions
from dp2ddp.result import MigrationResult

DP = "import torch\nimport torch.nn as nn\n\nmodel = nn.DataParallel(nn.Linear(4, 2))\n"
PLAIN = "import torch\n\nmodel = torch.nn.Linear(4, 2)\n"


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if "dp2ddp-tmp" in p.name]


# -- decoding ---------------------------------------------------------------------------------
def test_utf8_round_trip() -> None:
    data = "# é\nx = 'ü'\n".encode()
    source = decode(data)
    assert (source.encoding, source.bom, source.crlf) == ("utf-8", False, False)
    assert source.encode(source.text) == data


def test_bom_is_kept() -> None:
    data = b"\xef\xbb\xbfimport torch\n"
    source = decode(data)
    assert source.bom and source.text == "import torch\n"
    assert source.encode("import os\n") == b"\xef\xbb\xbfimport os\n"


def test_encoding_cookie_is_honoured_and_kept() -> None:
    data = b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n"
    source = decode(data)
    assert "été" in source.text
    assert source.encode(source.text) == data
    assert source.encode(source.text + "x = 1\n") == data + b"x = 1\n"


def test_crlf_is_normalised_and_restored() -> None:
    data = b"import torch\r\nx = 1\r\n"
    source = decode(data)
    assert source.crlf and source.text == "import torch\nx = 1\n"
    assert source.encode("import os\nimport torch\nx = 1\n") == (
        b"import os\r\nimport torch\r\nx = 1\r\n"
    )


def test_mixed_line_endings_pass_through() -> None:
    data = b"a = 1\r\nb = 2\n"
    source = decode(data)
    assert not source.crlf and source.text == "a = 1\r\nb = 2\n"
    assert source.encode(source.text) == data


@pytest.mark.parametrize(
    ("data", "message", "line", "col"),
    [
        (b"x = 1\ny = \x00\n", "binary file", 2, 5),
        (b"x = 1\ny = '\xff'\n", "cannot decode as utf-8", 2, 6),
        (b"# -*- coding: no-such-codec -*-\nx = 1\n", "cannot decode", 1, 1),
        (b"\xef\xbb\xbf# -*- coding: latin-1 -*-\n", "cannot decode", 1, 1),
    ],
)
def test_undecodable_input_is_one_positioned_error(
    data: bytes, message: str, line: int, col: int
) -> None:
    with pytest.raises(InputError) as info:
        decode(data)
    assert message in info.value.message
    assert (info.value.line, info.value.col) == (line, col)
    assert "\n" not in info.value.format("f.py")


def test_encode_refuses_what_the_file_encoding_cannot_hold() -> None:
    source = SourceFile("x = 1\n", "iso-8859-1")
    with pytest.raises(InputError, match="cannot encode"):
        source.encode("x = '€'\n")


def test_encode_refuses_to_move_the_encoding_cookie() -> None:
    source = decode(b"# -*- coding: latin-1 -*-\nx = '\xe9'\n")
    with pytest.raises(InputError, match="no longer be read as"):
        source.encode("import os\nimport sys\n" + source.text)


# -- atomic writes ----------------------------------------------------------------------------
def test_atomic_write_keeps_mode_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "run.py"
    path.write_bytes(b"old\n")
    path.chmod(0o751)
    write_atomic(str(path), b"new\n")
    assert path.read_bytes() == b"new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("failing", ["fsync", "replace", "chmod"])
@pytest.mark.parametrize("exception", [OSError(28, "No space left on device"), KeyboardInterrupt])
def test_failure_during_write_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str, exception: BaseException
) -> None:
    path = tmp_path / "train.py"
    path.write_bytes(b"old contents\n")

    def boom(*args: object, **kwargs: object) -> None:
        raise exception

    monkeypatch.setattr(os, failing, boom)
    with pytest.raises(type(exception) if isinstance(exception, BaseException) else exception):
        write_atomic(str(path), b"new contents\n")
    monkeypatch.undo()
    assert path.read_bytes() == b"old contents\n"
    assert _leftovers(tmp_path) == []


def test_read_only_file_is_refused_even_for_root(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_bytes(b"old\n")
    path.chmod(0o444)
    with pytest.raises(PermissionError, match="read-only"):
        write_atomic(str(path), b"new\n")
    assert path.read_bytes() == b"old\n"
    assert _leftovers(tmp_path) == []


def test_write_through_symlink_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    write_atomic(str(link), b"new\n")
    assert link.is_symlink() and real.read_bytes() == b"new\n"


def test_new_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "out.py"
    write_atomic(str(path), b"x\n", new_file_mode=0o700)
    assert stat.S_IMODE(path.stat().st_mode) == 0o700


# -- discovery --------------------------------------------------------------------------------
def _tree(root: Path, files: list[str]) -> None:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(PLAIN)


def test_walk_is_sorted_recursive_and_skips_tool_folders(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        [
            "b.py",
            "a.py",
            "notes.txt",
            "pkg/z.py",
            "pkg/sub/m.py",
            ".git/hook.py",
            "build/lib.py",
            "node_modules/x.py",
            ".venv/lib/y.py",
            "env/lib/site.py",
            "pkg/__pycache__/c.py",
            "dist/d.py",
            ".tox/t.py",
        ],
    )
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    found = [os.path.relpath(t.path, tmp_path) for t in discover([str(tmp_path)])]
    assert found == ["a.py", "b.py", "pkg/sub/m.py", "pkg/z.py"]


def test_explicit_files_are_always_processed(tmp_path: Path) -> None:
    _tree(tmp_path, ["build/gen.py", "script"])
    targets = discover([str(tmp_path / "build" / "gen.py"), str(tmp_path / "script")])
    assert [t.error for t in targets] == [None, None]
    assert all(t.explicit for t in targets)


def test_exclude_globs(tmp_path: Path) -> None:
    _tree(tmp_path, ["a.py", "gen_pb2.py", "tests/t.py", "src/tests/u.py", "src/keep.py"])
    found = discover([str(tmp_path)], ["*_pb2.py", "tests/"])
    assert sorted(os.path.relpath(t.path, tmp_path) for t in found) == ["a.py", "src/keep.py"]
    only = discover([str(tmp_path)], ["src/*"])
    assert "src/keep.py" not in {os.path.relpath(t.path, tmp_path) for t in only}


def test_missing_paths_and_symlink_loops_are_errors(tmp_path: Path) -> None:
    loop = tmp_path / "loop.py"
    loop.symlink_to(loop)
    (tmp_path / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "up").symlink_to(tmp_path, target_is_directory=True)  # folder link: not followed
    targets = discover([str(tmp_path / "missing.py"), str(loop), str(tmp_path)])
    errors = [t.error for t in targets]
    assert all(e is not None for e in errors), errors
    assert "no such file" in str(errors[0]) and "loop" in str(errors[1])
    assert len(targets) == 4  # missing, loop (given), then the walk: dangling, loop
    assert all(e is not None and e.count("\n") == 0 and ":1:1: error:" in e for e in errors)


def test_duplicates_are_listed_once(tmp_path: Path) -> None:
    _tree(tmp_path, ["a.py"])
    (tmp_path / "alias.py").symlink_to(tmp_path / "a.py")
    targets = discover([str(tmp_path / "a.py"), str(tmp_path), str(tmp_path / "a.py")])
    assert [os.path.basename(t.path) for t in targets] == ["a.py"]


def test_current_folder_paths_have_no_dot_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(tmp_path, ["a.py", "pkg/b.py"])
    monkeypatch.chdir(tmp_path)
    assert [t.path for t in discover(["."])] == ["a.py", os.path.join("pkg", "b.py")]


# -- the pre-check ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (DP, True),
        ("from torch.nn import DataParallel as DP\n", True),
        ("from torch.nn.parallel import data_parallel\ny = data_parallel(m, x)\n", True),
        ("import torch.nn.parallel as P\ny = P.data_parallel(m, x)\n", True),
        ("import torch\ny = torch.nn.parallel.data_parallel(m, x)\n", True),
        ("x = f'{DataParallel(m)}'\n", True),
        ("if config.data_parallel:\n    pass\n", False),
        ("s = '#'; m = nn.DataParallel(m)\n", True),
        ("s = 'it\\'s'\nm = nn.DataParallel(m)  # 'quoted'\n", True),
        (PLAIN, False),
        ("from torch.nn.parallel import DistributedDataParallel as DDP\nm = DDP(m)\n", False),
        ("# nn.DataParallel is slow\nx = 1\n", False),
        ('"""Unlike nn.DataParallel, this...\n"""\nx = 1\n', False),
        ("raise ValueError('DataParallel is not supported')\n", False),
        ("m = FullyShardedDataParallel(m)\nn = ShardedDataParallel(m)\n", False),
        ("n = MyDataParallel(m)\n", True),  # a project's wrapper: warned DP002
        ("model = DataParallelWithCallback(m)\n", True),
        ("patch_replication_callback(model)\n", True),
        # DataParallel by hand (issue 22 item 3): replicas run with parallel_apply.
        (
            "from torch.nn.parallel.parallel_apply import parallel_apply\n"
            "y = parallel_apply(r, i)\n",
            True,
        ),
        ("from torch.nn.parallel import scatter, gather\n", False),  # runs no replicas
        ("# parallel_apply in a comment\nx = 1\n", False),
        ("x = r'\\\\' + 'DataParallel'  # r'\\\\' is a complete raw string\n", False),
        ("x = '''it's \\''' DataParallel'''\ny = 1\n", False),
    ],
)
def test_precheck(text: str, expected: bool) -> None:
    assert may_use_dataparallel(text) is expected


@pytest.mark.parametrize(
    "text",
    [
        PLAIN,
        "# nn.DataParallel in a comment\nimport torch.nn as nn\nm = nn.Linear(1, 1)\n",
        '"""DataParallel docs."""\nfrom torch.nn.parallel import DistributedDataParallel\n',
        "import torch\nm = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(1, 1))\n",
        "msg = 'use torch.nn.DataParallel'\nprint(msg)\n",
        "import torch\nif cfg.data_parallel:\n    m = torch.nn.Linear(1, 1)\n",
    ],
)
def test_precheck_rejects_only_what_migrate_source_leaves_alone(text: str) -> None:
    assert not may_use_dataparallel(text)
    result = migrate_source(text)
    assert result.code == text and result.diagnostics == ()


def test_code_only_keeps_lines_and_code() -> None:
    text = "a = 'x'  # c\nb = '''\nDataParallel\n'''\nc = f'{d}'\n"
    stripped = code_only(text)
    assert stripped.count("\n") <= text.count("\n")
    assert "DataParallel" not in stripped and "a =" in stripped and "f'{d}'" in stripped


# -- the runner -------------------------------------------------------------------------------
def _write(folder: Path, files: dict[str, str | bytes]) -> list[str]:
    paths = []
    for name, content in files.items():
        path = folder / name
        if isinstance(content, str):
            path.write_text(content)
        else:
            path.write_bytes(content)
        paths.append(str(path))
    return paths


def test_runner_statuses_order_and_untouched_failures(tmp_path: Path) -> None:
    broken = "import torch.nn as nn\nm = nn.DataParallel(m)\nx.cuda(async=True)\n"
    paths = _write(tmp_path, {"a.py": DP, "b.py": PLAIN, "c.py": broken, "d.py": b"\xff\xfe"})
    outcomes = migrate_files(discover(paths), MigrateOptions(), jobs=1, sink=write_in_place)
    assert [o.status for o in outcomes] == ["migrated", "unchanged", "failed", "failed"]
    assert [o.path for o in outcomes] == paths
    assert Path(paths[0]).read_text() != DP
    assert Path(paths[1]).read_text() == PLAIN
    assert Path(paths[2]).read_text() == broken
    assert outcomes[2].error is not None and outcomes[2].error.startswith(f"{paths[2]}:3:")


def test_pool_gives_the_same_outcomes_in_input_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files: dict[str, str | bytes] = {
        f"f{i}.py": (DP + "\n" * i if i % 2 else PLAIN) for i in range(6)
    }
    paths = _write(tmp_path, files)
    serial = migrate_files(discover(paths), MigrateOptions(), jobs=1)
    monkeypatch.setattr(runner_module, "POOL_MIN_CHARS_FORK", 0)
    monkeypatch.setattr(runner_module, "POOL_MIN_CHARS_SPAWN", 0)
    ticks: list[int] = []
    pooled = migrate_files(discover(paths), MigrateOptions(), jobs=2, progress=ticks.append)
    assert pooled == serial
    assert sum(ticks) == len(paths)


def test_a_dp2ddp_bug_fails_one_file_and_never_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _write(tmp_path, {"bug.py": DP, "bad.py": DP + "\n", "ok.py": PLAIN})

    def buggy(source: str, options: object = None, *, filename: str | None = None) -> object:
        if filename and filename.endswith("bug.py"):
            raise RuntimeError("transform exploded\nwith two lines")
        return MigrationResult(source, "def broken(:\n")  # output that does not compile

    monkeypatch.setattr(engine, "migrate_source", buggy)  # the runner imports it lazily
    outcomes = migrate_files(discover(paths), MigrateOptions(), jobs=1, sink=write_in_place)
    assert [o.status for o in outcomes] == ["failed", "failed", "unchanged"]
    assert "internal error: RuntimeError: transform exploded with two lines" in str(
        outcomes[0].error
    )
    assert "does not compile" in str(outcomes[1].error)
    assert Path(paths[0]).read_text() == DP and Path(paths[1]).read_text() == DP + "\n"


def test_write_failure_is_a_failed_outcome(tmp_path: Path) -> None:
    (path,) = _write(tmp_path, {"a.py": DP})

    def full_disk(_path: str, _data: bytes) -> None:
        raise OSError(28, "No space left on device")

    (outcome,) = migrate_files(discover([path]), MigrateOptions(), jobs=1, sink=full_disk)
    assert outcome.status == "failed"
    assert outcome.error == f"{path}:1:1: error: cannot write: no space left on device"


def test_interrupt_mid_run_leaves_each_file_old_or_new(tmp_path: Path) -> None:
    paths = _write(tmp_path, {"a.py": DP, "b.py": DP + "\n", "c.py": DP + "\n\n"})
    written: list[str] = []

    def sink(path: str, data: bytes) -> None:
        if written:
            raise KeyboardInterrupt
        write_in_place(path, data)
        written.append(path)

    with pytest.raises(KeyboardInterrupt):
        migrate_files(discover(paths), MigrateOptions(), jobs=1, sink=sink)
    assert Path(paths[0]).read_text() == migrate_source(DP, filename=paths[0]).code
    assert Path(paths[1]).read_text() == DP + "\n"
    assert Path(paths[2]).read_text() == DP + "\n\n"
    assert _leftovers(tmp_path) == []


def test_crlf_bom_and_cookie_survive_a_migration() -> None:
    text = "# -*- coding: utf-8 -*-\n" + DP
    data = b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode()
    outcome, new = migrate_bytes("t.py", data, MigrateOptions())
    assert outcome.status == "migrated" and new is not None
    assert new.startswith(b"\xef\xbb\xbf# -*- coding: utf-8 -*-\r\n")
    assert new.count(b"\n") == new.count(b"\r\n")
    expected = migrate_source(text, filename="t.py").code
    assert new.decode("utf-8-sig").replace("\r\n", "\n") == expected
    again, newer = migrate_bytes("t.py", new, MigrateOptions())
    assert again.status == "unchanged" and newer is None


@pytest.mark.skipif(sys.platform != "linux", reason="workers inherit the patch only when forked")
def test_a_dying_worker_fails_files_instead_of_hanging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _write(tmp_path, {"die.py": DP, "ok.py": DP + "\n"})
    real = migrate_source

    def fatal(source: str, options: object = None, *, filename: str | None = None) -> object:
        if filename and filename.endswith("die.py"):
            os._exit(1)  # like being killed for memory
        return real(source, options, filename=filename)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "migrate_source", fatal)
    monkeypatch.setattr(runner_module, "POOL_MIN_CHARS_FORK", 0)
    monkeypatch.setattr(runner_module, "POOL_MIN_CHARS_SPAWN", 0)
    outcomes = migrate_files(discover(paths), MigrateOptions(), jobs=2, sink=write_in_place)
    assert outcomes[0].status == "failed" and "worker process" in str(outcomes[0].error)
    assert Path(paths[0]).read_text() == DP
    assert outcomes[1].status in ("migrated", "failed")  # the pool may break under it too
    if outcomes[1].status == "failed":
        assert Path(paths[1]).read_text() == DP + "\n"


def test_a_file_edited_during_the_run_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (path,) = _write(tmp_path, {"a.py": DP})
    edit = DP + "# the user's edit, saved while dp2ddp was busy\n"
    real = runner_module._work

    def slow_work(task: runner_module._Task) -> runner_module._Done:
        Path(path).write_text(edit)
        return real(task)

    monkeypatch.setattr(runner_module, "_work", slow_work)
    (outcome,) = migrate_files(discover([path]), MigrateOptions(), jobs=1, sink=write_in_place)
    assert outcome.status == "failed" and "changed on disk" in str(outcome.error)
    assert Path(path).read_text() == edit
