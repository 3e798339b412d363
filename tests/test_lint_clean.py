"""A lint-clean project stays lint-clean after `dp2ddp migrate` (issue 31 item 2).

Measured with ruff itself (a test dependency only: dp2ddp never runs a formatter): a
ruff-formatted project at 88 columns, a single script and a multi-module program
(tests/lint_projects/), gains no F (unused import or variable, ...), E501 or I001 finding and
still passes `ruff format --check`; the same for every bundled example, formatted first;
a project that sets its own width gets lines within it. And the width is read as ruff,
black, flake8 and editorconfig read theirs (migrate/line_length.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dp2ddp.cli import main
from dp2ddp.migrate.line_length import DEFAULT, helpers_first_party, line_length
from dp2ddp.migrate.unused import drop_unused

ROOT = Path(__file__).resolve().parent.parent
PROJECTS = Path(__file__).parent / "lint_projects"
EXAMPLES = ROOT / "examples"
RUFF = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
needs_ruff = pytest.mark.skipif(not Path(RUFF).exists(), reason="ruff is not installed")


# -- the width ---------------------------------------------------------------------------------
def test_no_settings_is_88(tmp_path: Path) -> None:
    assert line_length(str(tmp_path / "train.py")) == DEFAULT == 88


@pytest.mark.parametrize(
    ("name", "text", "width"),
    [
        ("ruff.toml", "line-length = 120\n", 120),
        (".ruff.toml", "line-length = 99\n", 99),
        ("pyproject.toml", "[tool.ruff]\nline-length = 100\n", 100),
        ("pyproject.toml", "[tool.black]\nline-length = 79\n", 79),
        ("pyproject.toml", "[tool.ruff]\nline-length = 90\n[tool.black]\nline-length = 79\n", 90),
        ("setup.cfg", "[flake8]\nmax-line-length = 110\n", 110),
        ("tox.ini", "[flake8]\nmax_line_length = 101\n", 101),
        (".flake8", "[flake8]\nmax-line-length = 95\n", 95),
        (
            ".editorconfig",
            "root = true\n[*]\nmax_line_length = 90\n[*.md]\nmax_line_length = 1\n",
            90,
        ),
        (".editorconfig", "[*.{py,pyi}]\nmax_line_length = 77\n", 77),
        (".editorconfig", "[*.py]\nmax_line_length = off\n", 88),
        ("pyproject.toml", "[project]\nname = 'x'\n", 88),  # says nothing
        ("pyproject.toml", "[tool.ruff\nline-length = 100\n", 88),  # broken: ruff's to say
        ("setup.cfg", "[metadata]\nname = x\n", 88),
        (".editorconfig", "[*.md]\nmax_line_length = 70\n", 88),
    ],
)
def test_the_width_is_read_from_the_project_settings(
    tmp_path: Path, name: str, text: str, width: int
) -> None:
    (tmp_path / name).write_text(text)
    (tmp_path / "pkg").mkdir()
    assert line_length(str(tmp_path / "pkg" / "train.py")) == width


def test_the_nearest_settings_win(tmp_path: Path) -> None:
    """As ruff finds its configuration: the nearest file that says, then the one above."""
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n")
    inner = tmp_path / "sub"
    inner.mkdir()
    (inner / "setup.cfg").write_text("[flake8]\nmax-line-length = 79\n")
    (inner / "pyproject.toml").write_text("[project]\nname = 'sub'\n")  # no width here
    deeper = inner / "deeper"
    deeper.mkdir()
    assert line_length(str(deeper / "a.py")) == 79
    assert line_length(str(tmp_path / "a.py")) == 120
    assert line_length(str(inner / "a.py")) == 79


def test_helpers_are_first_party_only_in_a_source_root(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "tools").mkdir()
    (tmp_path / "pkg").mkdir()
    assert helpers_first_party(str(tmp_path), "_dp2ddp")
    assert helpers_first_party(str(tmp_path / "src"), "_dp2ddp")
    assert not helpers_first_party(str(tmp_path / "tools"), "_dp2ddp")  # ruff: third party
    assert helpers_first_party(str(tmp_path / "pkg"), "pkg._dp2ddp")


# -- ruff on migrated projects ----------------------------------------------------------------
def _findings(folder: Path, width: int = 88) -> list[tuple[str, str, str]]:
    done = subprocess.run(
        [RUFF, "check", "--isolated", "--no-cache", "--select", "F,E501,I001",
         f"--line-length={width}", "--output-format=json", "--exit-zero", "."],
        cwd=folder, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return sorted(
        (Path(item["filename"]).relative_to(folder).as_posix(), item["code"], item["message"])
        for item in json.loads(done.stdout)
    )


def _unformatted(folder: Path, width: int = 88, isolated: bool = True) -> list[str]:
    options = ["--isolated", f"--line-length={width}"] if isolated else []
    done = subprocess.run(
        [RUFF, "format", "--no-cache", *options, "--check", "."],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    return [line for line in done.stdout.splitlines() if line.startswith("Would reformat")]


def _migrate(folder: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder)  # as from the project's top, where ruff runs
    result = CliRunner().invoke(main, ["migrate", "-q", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _ruff_formatted(folder: Path, width: int = 88) -> None:
    """The project as a ruff user keeps it: imports sorted, formatted."""
    common = ["--isolated", "--no-cache", f"--line-length={width}", "-q", "."]
    subprocess.run([RUFF, "check", "--select", "I001", "--fix", *common], cwd=folder, check=True)
    subprocess.run([RUFF, "format", *common], cwd=folder, check=True)


@needs_ruff
@pytest.mark.parametrize(("case", "entry"), [("single", "train.py"), ("multi", "main.py")])
def test_a_ruff_clean_project_stays_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, entry: str
) -> None:
    work = tmp_path / case
    shutil.copytree(PROJECTS / case, work)
    assert _findings(work) == [] and _unformatted(work) == []  # the premise
    before = {p: p.read_text() for p in work.rglob("*.py")}
    _migrate(work, entry, monkeypatch=monkeypatch)
    assert any(p.read_text() != text for p, text in before.items())  # it did migrate
    assert _findings(work) == []
    assert _unformatted(work) == []


@needs_ruff
def test_long_strings_moved_under_a_guard_are_cut_to_the_width(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """single/train.py's epoch print fits at its place; under the new `if ddp_is_main():`
    it would not: it is cut into implicitly concatenated pieces (the same string)."""
    work = tmp_path / "single"
    shutil.copytree(PROJECTS / "single", work)
    _migrate(work, "train.py", monkeypatch=monkeypatch)
    text = (work / "train.py").read_text()
    assert '{total / len(train_loader):.4f} (this "\n                "epoch)"\n' in text
    assert max(len(line) for line in text.splitlines()) <= 88


@needs_ruff
def test_the_project_width_is_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project at 100 columns: its own `ruff format --check` (its settings) passes, and
    no line dp2ddp writes is longer than 100."""
    work = tmp_path / "multi"
    shutil.copytree(PROJECTS / "multi", work)
    (work / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    subprocess.run([RUFF, "format", "--no-cache", "-q", "."], cwd=work, check=True)
    _migrate(work, "main.py", monkeypatch=monkeypatch)
    assert _unformatted(work, isolated=False) == []
    assert _findings(work, 100) == []
    helpers = (work / "_dp2ddp.py").read_text()
    assert max(len(line) for line in helpers.splitlines()) <= 88  # written within any width


def _example_cases() -> list[tuple[str, Path, str]]:
    cases = []
    for folder in sorted(EXAMPLES.iterdir()):
        if (folder / "train.py").is_file():
            cases.append((folder.name, folder / "train.py", "train.py"))
        elif (folder / "original").is_dir():
            cases.append((folder.name, folder / "original", "."))
    return cases


@needs_ruff
@pytest.mark.parametrize(("name", "source", "target"), _example_cases(), ids=lambda v: str(v))
def test_bundled_examples_gain_no_finding_at_88(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: Path, target: str
) -> None:
    """Each bundled example, ruff-formatted at 88, then migrated: no new finding."""
    work = tmp_path / name
    if source.is_dir():
        shutil.copytree(source, work, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        work.mkdir()
        shutil.copy(source, work / "train.py")
    _ruff_formatted(work)
    before = _findings(work)  # a long string or a star import the formatter leaves
    _migrate(work, target, monkeypatch=monkeypatch)
    after = _findings(work)
    assert [f for f in after if f not in before] == []
    assert _unformatted(work) == []
    assert os.listdir(work)


# -- a device choice the edits left unread ------------------------------------------------------
_CHOICE = 'device = "cuda" if torch.cuda.is_available() else "cpu"'


def test_a_device_choice_whose_reads_became_device_goes_with_its_import() -> None:
    """transforms/devices.py keeps the program's device string a string; when every read
    of it became DEVICE, the line (F841) and the import only it read (F401) go."""
    source = f"import torch\n\n\ndef f(m):\n    {_CHOICE}\n    return m.to(device)\n"
    code = f"import torch\n\n\ndef f(m):\n    {_CHOICE}\n    return m.to(DEVICE)\n"
    assert drop_unused(source, code) == "\n\ndef f(m):\n    return m.to(DEVICE)\n"


def test_a_device_choice_the_program_never_read_stays() -> None:
    """Not the migration's doing: left as the program had it."""
    source = f"import torch\n\n\ndef f(m):\n    {_CHOICE}\n    return m.cuda()\n"
    code = f"import torch\n\n\ndef f(m):\n    {_CHOICE}\n    return m.to(DEVICE)\n"
    assert drop_unused(source, code) == code
