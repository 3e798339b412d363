"""A file that is not valid Python is reported at Python's own position with Python's own
message (issue 10, item 10): one line, exit 2, no traceback, the file untouched."""

from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner, Result

from dp2ddp import InputError, migrate_source
from dp2ddp.cli import main

WRAP = "import torch\nmodel = torch.nn.DataParallel(model)\n"

#: name -> (source, `line:col: error: message` as Python 3.10-3.13 report it)
BROKEN: dict[str, tuple[str, str]] = {
    "unclosed_paren": (
        "import torch\nmodel = torch.nn.DataParallel(net\nprint(model)\n",
        "2:30: error: '(' was never closed",
    ),
    "unexpected_indent": (WRAP + "    x = 1\n", "3:4: error: unexpected indent"),
    "bad_dedent": (
        "import torch\nif model:\n        model = torch.nn.DataParallel(model)\n    x = 1\n",
        "4:10: error: unindent does not match any outer indentation level",
    ),
    "missing_block": (
        "import torch\nif model:\nmodel = torch.nn.DataParallel(model)\n",
        "3:1: error: expected an indented block after 'if' statement on line 2",
    ),
    "tabs_and_spaces": (
        "import torch\nif model:\n\tmodel = torch.nn.DataParallel(model)\n        x = 1\n",
        "4:1: error: inconsistent use of tabs and spaces in indentation",
    ),
    "invalid_character": (WRAP + "x = 1 € 2\n", "3:7: error: invalid character '€' (U+20AC)"),
    "invalid_token": (WRAP + "x = 1 $ 2\n", "3:7: error: invalid syntax"),
    "python2_print": (
        WRAP + "print 'loss', loss\n",
        "3:1: error: Missing parentheses in call to 'print'. Did you mean print(...)?",
    ),
}
if sys.version_info < (3, 12):  # PEP 701 reworded f-string errors
    BROKEN["fstring_unclosed_brace"] = (WRAP + "x = f'{'\n", "3:9: error: f-string: expecting '}'")


def _migrate(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, ["migrate", *args], input=input, catch_exceptions=False)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_syntax_error_is_pythons_own_line(tmp_path: Path, name: str) -> None:
    source, where = BROKEN[name]
    path = tmp_path / "train.py"
    path.write_text(source)
    result = _migrate(str(path))
    assert result.exit_code == 2
    assert "Traceback" not in result.output and "expected one of" not in result.output
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert errors == [f"{path}:{where}"]
    assert path.read_text() == source


def test_syntax_error_on_stdin_and_in_check_mode(tmp_path: Path) -> None:
    source, where = BROKEN["unclosed_paren"]
    result = _migrate("-", input=source)
    assert result.exit_code == 2 and result.stdout == ""
    assert f"<stdin>:{where}" in result.stderr.splitlines()
    path = tmp_path / "train.py"
    path.write_text(source)
    check = _migrate("--check", str(path))
    assert check.exit_code == 2 and f"{path}:{where}" in check.stderr.splitlines()


def test_position_is_in_characters_not_bytes() -> None:
    with pytest.raises(InputError) as caught:
        migrate_source(WRAP + "s = 'é'; t = (é\n")
    assert (caught.value.line, caught.value.col) == (3, 14)
    assert caught.value.message == "'(' was never closed"


def test_python_valid_code_that_libcst_rejects_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Syntax newer than the installed libcst knows: its own position, and why it is shown."""
    source = WRAP + "x = 1\n"

    def reject(code: str) -> cst.Module:
        raise cst.ParserSyntaxError(
            "parser error: error at 3:4: expected one of !=, %, &",
            lines=[],
            raw_line=3,
            raw_column=4,
        )

    monkeypatch.setattr("dp2ddp.migrate.migrate_source.cst.parse_module", reject)
    with pytest.raises(InputError) as caught:
        migrate_source(source)
    assert caught.value.format("train.py") == (
        "train.py:3:5: error: cannot parse: parser error: error at 3:4: expected one of !=, %, &"
        " (valid Python, but not to libcst's parser)"
    )
