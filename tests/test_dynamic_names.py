"""A computed import name's static end (program/dynamic_imports.py, stop 45's v2-D): the
package's modules whose names end so join the program, whatever they wrap or build. Its
static start (the package) likewise, also of a `%` template (stop 46, v1-B)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from click.testing import CliRunner

from dp2ddp.cli import main
from dp2ddp.program.dynamic_imports import MEMBER_LIMIT, call_sites, found_calls


@pytest.mark.parametrize(
    ("argument", "suffix"),
    [
        ('"models." + name + "_model"', "_model"),
        ('f"models.{name}_model"', "_model"),
        ('"models.{}_model".format(name)', "_model"),
        ('"models." + name', ""),
        ('f"models.{name}"', ""),
        ('"models." + name + ".net"', ""),  # a dotted end names no module file
        # stop 46, v1-B (icoz69/CEC-CVPR2021): printf-style templates, read as no name before
        ('"models.%s_model" % name', "_model"),
        ('"models.%s.fscil_trainer" % (name)', ""),
        ('"models.%(kind)s_model" % {"kind": name}', "_model"),
    ],
)
def test_the_static_end_of_a_computed_name(argument: str, suffix: str) -> None:
    source = (
        f"import importlib\n\ndef load(name):\n    return importlib.import_module({argument})\n"
    )
    (site,) = call_sites(found_calls(ast.parse(source)), "main", False, "main.py")
    assert site.name is None and site.prefix == "models"
    assert site.suffix == suffix


def test_a_variable_holding_the_name_is_read_too() -> None:
    source = (
        "import importlib\n\ndef load(name):\n"
        '    filename = "models." + name + "_model"\n'
        "    return importlib.import_module(filename)\n"
    )
    (site,) = call_sites(found_calls(ast.parse(source)), "main", False, "main.py")
    assert (site.prefix, site.suffix) == ("models", "_model")


def _package_program(root: Path, members: int) -> None:
    """An entry that imports `nets.<name>` by a name nothing bounds, and a package of
    `members` network modules that each print (none wraps or builds a loader)."""
    (root / "nets").mkdir()
    (root / "nets" / "__init__.py").write_text("")
    for index in range(members):
        (root / "nets" / f"net{index:02d}.py").write_text(
            f'from torch import nn\n\n\ndef build():\n    print("net {index}")\n'
            "    return nn.Linear(4, 1)\n"
        )
    (root / "train.py").write_text(
        "import importlib\nimport sys\n\nimport torch\n\n"
        'net = importlib.import_module("nets." + sys.argv[1])\n'
        "model = torch.nn.DataParallel(net.build())\n"
        "print(model(torch.randn(2, 4)).shape)\n"
    )


def test_every_module_a_computed_name_can_be_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stop 46: `'nets.' + name` with no static end reads each module of nets (before:
    only those that wrap or build a loader, so their prints stayed on every rank)."""
    _package_program(tmp_path, 3)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["migrate", "train.py"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert "DP073" not in result.stderr
    for index in range(3):
        assert "ddp_print(" in (tmp_path / "nets" / f"net{index:02d}.py").read_text()


def test_too_many_modules_for_one_call_are_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More than MEMBER_LIMIT modules the name can be: DP073 at the call names those left
    unread, and --check fails on it after the migration too."""
    _package_program(tmp_path, MEMBER_LIMIT + 1)
    entry = tmp_path / "train.py"  # one member is imported statically: read, not named
    entry.write_text("import nets.net00\n" + entry.read_text())
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["migrate", "train.py"], catch_exceptions=False)
    assert "train.py:7:7: DP073" in result.stderr, result.stderr
    assert ": nets/net01.py, nets/net02.py, nets/net03.py and 37 more" in result.stderr
    assert "ddp_print(" in (tmp_path / "nets" / "net00.py").read_text()
    assert "print(" in (tmp_path / "nets" / "net01.py").read_text()
    again = CliRunner().invoke(main, ["migrate", "--check", "train.py"], catch_exceptions=False)
    assert again.exit_code == 1 and "DP073" in again.stderr, again.stderr


@pytest.mark.parametrize(
    ("binding", "argument"),
    [
        ('parser.add_argument("--arch", choices=["net01", "net03"])', "args.arch"),
        ('parser.add_argument("-a", "--arch", choices=("NET01", "NET03"))', "args.arch.lower()"),
        ('ARCHS = {"small": "net01", "big": "net03"}', "ARCHS[args.arch]"),
    ],
)
def test_a_bounded_name_reads_only_the_modules_it_can_be(
    binding: str, argument: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """argparse's `choices=` or a dict of names bounds the computed part: only those
    modules are read, however many the package holds (no DP073)."""
    _package_program(tmp_path, MEMBER_LIMIT + 1)
    option = "" if "parser." in binding else 'parser.add_argument("--arch", default="net01")\n'
    (tmp_path / "train.py").write_text(
        "import argparse\nimport importlib\n\nimport torch\n\n"
        f"parser = argparse.ArgumentParser()\n{binding}\n{option}"
        "args = parser.parse_args()\n"
        f'net = importlib.import_module(f"nets.{{{argument}}}")\n'
        "model = torch.nn.DataParallel(net.build())\n"
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["migrate", "train.py"], catch_exceptions=False)
    assert result.exit_code == 0 and "DP073" not in result.stderr, result.stderr
    for index in range(4):
        text = (tmp_path / "nets" / f"net{index:02d}.py").read_text()
        assert ("ddp_print(" in text) == (index in (1, 3)), (index, text)


def test_dunder_import_reads_the_same_bound() -> None:
    """`__import__("nets." + args.arch)` is read as import_module's name is."""
    source = (
        "import argparse\n\nparser = argparse.ArgumentParser()\n"
        'parser.add_argument("--arch", choices=["mlp", "cnn"])\n'
        "args = parser.parse_args()\n"
        'net = __import__("nets." + args.arch)\n'
    )
    (site,) = call_sites(found_calls(ast.parse(source)), "main", False, "main.py")
    assert (site.prefix, site.suffix, site.names) == ("nets", "", ("mlp", "cnn"))


def test_a_percent_template_with_a_literal_percent_is_not_read() -> None:
    source = 'import importlib\nimportlib.import_module("models.%%.%s" % name)\n'
    (site,) = call_sites(found_calls(ast.parse(source)), "main", False, "main.py")
    assert site.opaque
