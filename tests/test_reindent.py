"""Indentation Python reads but libcst's parser does not (dp2ddp/migrate/reindent.py): the
refused lines re-indented as Python reads them, proved by equal `ast.dump`s, said in DP110;
a file with nothing to migrate left as it was, byte for byte (stop 43's v2-A,
jalola/improved-wgan-pytorch@2a3d3d5: the whole file was refused with the error at 1:1)."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner

from dp2ddp import migrate_source
from dp2ddp.cli import main
from dp2ddp.errors import InputError
from dp2ddp.migrate import reindent
from dp2ddp.migrate.parse import parse
from dp2ddp.migrate.reindent import column, refused_lines, reindented

#: v2-A's shape: a block at 8 spaces, its body `    \t    ` (column 12): not the block's text.
V2A = (
    "import torch\n"
    "from torch import nn\n"
    "\n"
    "model = nn.DataParallel(nn.Linear(4, 2))\n"
    "x = torch.ones(4, 4)\n"
    "for step in range(2):\n"
    "    if step:\n"
    "        with torch.no_grad():\n"
    "    \t    y = model(x)  # a \t in a comment: kept\n"
    "    \t    z = '''\n"
    "\t  text'''\n"
    "        print('loss', y.sum().item(), z)\n"
)


def test_columns_are_pythons() -> None:
    assert [column(s) for s in ("    \t    ", "\t", " \t", "\t  ", "  \f  ", "")] == [
        12,
        8,
        8,
        10,
        2,
        0,
    ]


def test_the_refused_lines_and_what_they_become() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        cst.parse_module(V2A)
    assert refused_lines(V2A) == {9: " " * 12, 10: " " * 12}
    fixed = reindented(V2A)
    assert fixed is not None and fixed.lines == (9, 10)
    cst.parse_module(fixed.text)
    assert ast.dump(ast.parse(fixed.text)) == ast.dump(ast.parse(V2A))
    before, after = V2A.split("\n"), fixed.text.split("\n")
    assert [i for i, (a, b) in enumerate(zip(before, after, strict=True), 1) if a != b] == [9, 10]
    assert after[10] == "\t  text'''"  # inside a string: not indentation


def test_a_block_under_a_tab_keeps_the_tab() -> None:
    source = "def f():\n\tif x:\n            return 1\n\treturn 2\n"
    assert refused_lines(source) == {3: "\t    "}


def test_what_libcst_reads_is_left_alone() -> None:
    for source in (
        "if x:\n\ty = 1\n\tif y:\n\t    z = 2\n",  # a tab, then spaces under it
        "if a:\n    if b:\n    \t    c = 2\n",  # `    \t    ` begins with the block's `    `
        "x = (1,\n\t  2)\n",  # a continuation line
        "if a:\n    b = 1\n",
        "if a:\n\tb = 1\n",
    ):
        compile(source, "s", "exec")
        cst.parse_module(source)
        assert refused_lines(source) == {}, source
        assert reindented(source) is None


def test_invalid_python_is_left_to_pythons_error() -> None:
    assert reindented("if x:\n\ty = 1\n        z = 2\n") is None  # TabError
    with pytest.raises(InputError, match="inconsistent use of tabs") as caught:
        parse("if x:\n\ty = 1\n        z = 2\n")
    assert caught.value.line == 3


def test_an_unproved_rewrite_is_refused_at_the_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reindent, "_same_program", lambda before, after: False)
    with pytest.raises(InputError, match="indentation mixes tabs and spaces") as caught:
        migrate_source(V2A)
    assert (caught.value.line, caught.value.col) == (9, 1)


def test_migrated_with_dp110_and_unchanged_files_keep_every_byte(tmp_path: Path) -> None:
    train = tmp_path / "train.py"
    train.write_bytes(V2A.replace("\n", "\r\n").encode())
    other = tmp_path / "other.py"  # names DataParallel, migrates nothing: left as it was
    untouched = "# DataParallel\nif x:\n        if y:\n    \t    z = 1\n"
    other.write_text(untouched)
    run = CliRunner().invoke(main, ["migrate", "--isolated", str(tmp_path)])
    assert run.exit_code == 0, run.output
    assert f"{train}:9:1: DP110 " in run.output
    assert "lines 9-10 re-indented" in run.output
    assert other.read_text() == untouched
    migrated = train.read_bytes().decode()
    assert "\r\n" in migrated and "\n" not in migrated.replace("\r\n", "")
    lines = migrated.split("\r\n")
    assert "            y = DistributedDataParallel" not in migrated
    assert any(line.startswith(" " * 12 + "y = model(x)") for line in lines)
    assert "\t  text'''" in lines
    check = CliRunner().invoke(main, ["migrate", "--isolated", "--check", str(train)])
    assert check.exit_code == 0, check.output  # nothing left to say: DP110 is said once
    assert "DP110" not in check.output
