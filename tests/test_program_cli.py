"""`dp2ddp migrate ENTRY` on multi-module programs: exit codes, errors, reporting, run time.

The golden trees are in tests/program_fixtures (test_programs.py); these tests copy a case's
input and check what the CLI does around it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from dp2ddp.cli import main
from dp2ddp.program.discovery import discover_program
from dp2ddp.transforms._support.runtime import MARKER

PROGRAMS = Path(__file__).parent / "program_fixtures"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["migrate", *args], catch_exceptions=False)


def copy_case(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / name
    shutil.copytree(PROGRAMS / name / "input", work)
    monkeypatch.chdir(work)
    return work


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def errors(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if ": error: " in line]


# -- all or nothing ---------------------------------------------------------------------------
def test_unparsable_module_fails_the_whole_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = copy_case("builder_data_loop", tmp_path, monkeypatch)
    (work / "data.py").write_text((work / "data.py").read_text() + "\ndef broken(:\n")
    before = snapshot(work)
    result = run("train.py")
    assert result.exit_code == 2
    (line,) = errors(result)
    assert line == "data.py:13:12: error: invalid syntax", line
    assert "Traceback" not in result.output
    assert snapshot(work) == before  # nothing written, no _dp2ddp.py


def test_a_project_module_named_like_the_generated_one_is_never_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = copy_case("builder_data_loop", tmp_path, monkeypatch)
    (work / "_dp2ddp.py").write_text("VALUE = 1\n")
    before = snapshot(work)
    result = run("train.py")
    assert result.exit_code == 2
    (line,) = errors(result)
    assert line.startswith("_dp2ddp.py:1:1: error: the project has its own _dp2ddp.py")
    assert snapshot(work) == before


def test_check_and_diff_cover_every_file_of_the_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = copy_case("builder_data_loop", tmp_path, monkeypatch)
    before = snapshot(work)
    check = run("--check", "train.py")
    assert check.exit_code == 1
    for name in ("train.py", "data.py", "models.py"):
        assert f"would migrate {name}" in check.stderr
    assert "would create _dp2ddp.py" in check.stderr  # a new file, not one migrated
    assert "would migrate _dp2ddp.py" not in check.stderr
    assert "3 files would be migrated, 1 would be created." in check.stderr
    diff = run("--diff", "train.py")
    assert diff.exit_code == 0
    for name in ("train.py", "data.py", "models.py", "_dp2ddp.py"):
        assert f"+++ {name}" in diff.stdout
    assert snapshot(work) == before


def test_output_file_refuses_a_program_of_several_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = copy_case("builder_data_loop", tmp_path, monkeypatch)
    before = snapshot(work)
    result = run("-o", "out.py", "train.py")
    assert result.exit_code == 2
    (line,) = errors(result)
    assert line.startswith("train.py:1:1: error: -o/--output takes a single-file program")
    assert snapshot(work) == before


def test_output_file_still_takes_a_single_file_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = copy_case("single_file_program", tmp_path, monkeypatch)
    result = run("-o", "out.py", "train.py")
    assert result.exit_code == 0, result.stderr
    expected = PROGRAMS / "single_file_program" / "expected" / "train.py"
    assert (work / "out.py").read_text() == expected.read_text()


def test_report_lists_every_file_and_the_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy_case("builder_data_loop", tmp_path, monkeypatch)
    result = run("--report", "review.md", "train.py")
    assert result.exit_code == 0, result.stderr
    report = Path("review.md").read_text()
    for name in ("train.py", "data.py", "models.py", "_dp2ddp.py"):
        assert name in report


# -- launch hint and warnings -----------------------------------------------------------------
def test_launch_hint_names_the_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy_case("builder_data_loop", tmp_path, monkeypatch)
    result = run("train.py")
    assert "created _dp2ddp.py" in result.stderr.splitlines()
    hint = result.stderr.split("Launch with torchrun", 1)[1]
    assert "torchrun --standalone --nproc_per_node=auto train.py" in hint
    assert "models.py" not in hint and "data.py" not in hint


def test_launch_hint_of_a_module_entry_uses_dash_m(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy_case("module_entry", tmp_path, monkeypatch)
    result = run("pkg/train.py")
    assert "torchrun --standalone --nproc_per_node=auto -m pkg.train" in result.stderr


def test_launch_hint_of_a_module_imported_by_a_run_time_name_names_the_importer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The DP094 case: the trainer has top-level code, so folder mode migrates it as an entry
    of its own, but it runs only under train.py, which imports it by a name given at run
    time: the hint names train.py, not `-m trainer.base` (open item of stop 40, helper b)."""
    work = copy_case("importlib_unknown_name_loader", tmp_path, monkeypatch)
    base = work / "trainer" / "base.py"
    base.write_text('import os\nos.environ.setdefault("OMP_NUM_THREADS", "1")\n' + base.read_text())
    result = run(".")
    assert "DP094" in result.stderr
    hint = result.stderr.split("Launch with torchrun", 1)[1]
    assert "torchrun --standalone --nproc_per_node=auto train.py" in hint, hint
    assert "trainer.base" not in hint and "base.py" not in hint, hint


# -- folder mode ------------------------------------------------------------------------------
def test_folder_equals_entries_one_by_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = copy_case("shared_module", tmp_path / "each", monkeypatch)
    for entry in ("train_small.py", "train_long.py"):
        assert run(entry).exit_code == 0
    assert snapshot(work) == snapshot(PROGRAMS / "shared_module" / "expected")


def test_folder_opens_the_gate_through_a_reexported_wrap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """train.py wraps with `DP` from lib/models.py (`from torch.nn import DataParallel as
    DP`): no file wraps by its own text, the importer's program does (program/reexports.py);
    the folder migrates as the entry alone does."""
    work = copy_case("reexported_torch_names", tmp_path, monkeypatch)
    assert run(".").exit_code == 0
    assert snapshot(work) == snapshot(PROGRAMS / "reexported_torch_names" / "expected")


def test_entries_of_a_folder_in_the_other_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = copy_case("shared_module", tmp_path, monkeypatch)
    assert run("train_long.py", "train_small.py").exit_code == 0
    assert snapshot(work) == snapshot(PROGRAMS / "shared_module" / "expected")


# -- discovery --------------------------------------------------------------------------------
def test_discovery_follows_project_imports_only(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "train.py").write_text(
        "import os\nimport torch\nimport helpers\nfrom tools import cfg\n"
        "def main():\n    import late\n"
        "if __name__ == '__main__':\n    from util.inner import x\n"
    )
    for name in ("helpers", "late"):
        (tmp_path / "app" / f"{name}.py").write_text("")
    (tmp_path / "app" / "tools").mkdir()
    (tmp_path / "app" / "tools" / "__init__.py").write_text("")
    (tmp_path / "app" / "tools" / "cfg.py").write_text("from . import sibling\n")
    (tmp_path / "app" / "tools" / "sibling.py").write_text("")
    (tmp_path / "util").mkdir()  # at the root: found through the root, a namespace package
    (tmp_path / "util" / "inner.py").write_text("")
    (tmp_path / "outside.py").write_text("")
    program = discover_program(str(tmp_path / "app" / "train.py"))
    names = [m.name for m in program.modules]
    assert names == [
        "train",
        "helpers",
        "tools",
        "tools.cfg",
        "late",
        "util.inner",
        "tools.sibling",
    ]
    assert program.root == str(tmp_path)


def test_an_entry_in_a_package_that_imports_a_sibling_by_bare_name_is_a_script(
    tmp_path: Path,
) -> None:
    """`import dataset` beside mnist/dataset.py works only for `python train.py` (real-world:
    aaron-xichen/pytorch-playground@5d47629): taken for `-m mnist.train`, dataset.py was
    left out of the program and its loaders unsharded in silence."""
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "mnist").mkdir()
    (tmp_path / "mnist" / "__init__.py").write_text("")
    (tmp_path / "mnist" / "train.py").write_text("import dataset\nfrom utee import misc\n")
    (tmp_path / "mnist" / "dataset.py").write_text("")
    (tmp_path / "utee").mkdir()
    (tmp_path / "utee" / "__init__.py").write_text("")
    (tmp_path / "utee" / "misc.py").write_text("")
    program = discover_program(str(tmp_path / "mnist" / "train.py"))
    assert program.module_entry is None
    assert program.launch_target == str(tmp_path / "mnist" / "train.py")
    assert [m.name for m in program.modules] == ["train", "dataset", "utee", "utee.misc"]


def test_an_entry_in_a_package_stays_a_module_without_such_evidence(tmp_path: Path) -> None:
    """`from . import x`, or a bare name that also resolves above the package: `-m` runs it."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "train.py").write_text("from . import data\nimport common\n")
    (tmp_path / "pkg" / "data.py").write_text("")
    (tmp_path / "pkg" / "common.py").write_text("")
    (tmp_path / "common.py").write_text("")
    program = discover_program(str(tmp_path / "pkg" / "train.py"))
    assert program.module_entry == "pkg.train"
    assert [m.name for m in program.modules] == ["pkg.train", "pkg", "pkg.data", "common"]


def test_discovery_lists_project_loader_modules_it_cannot_follow(tmp_path: Path) -> None:
    """Reached through a sys.path edit: not followed, but named for DP027."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "train.py").write_text("import torch\nimport loaders\nimport helpers\n")
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "loaders.py").write_text("from torch.utils.data import DataLoader\n")
    (tmp_path / "common" / "helpers.py").write_text("x = 1\n")  # builds no loader
    program = discover_program(str(tmp_path / "train.py"))
    assert [m.name for m in program.modules] == ["train"]
    assert program.unfollowed == (("loaders", str(tmp_path / "common" / "loaders.py")),)


def test_discovery_never_leaves_the_root(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    (project / "train.py").write_text("import shared\nimport torch\n")
    (tmp_path / "shared.py").write_text("")  # beside the project, not in it
    program = discover_program(str(project / "train.py"))
    assert [m.name for m in program.modules] == ["train"]


# -- running the migrated program -------------------------------------------------------------
def test_importing_a_migrated_library_starts_no_process_group() -> None:
    expected = PROGRAMS / "builder_data_loop" / "expected"
    code = (
        "import torch.distributed as dist\n"
        "import data, models, train, _dp2ddp\n"
        "models.build_model  # the library modules load\n"
        "assert not dist.is_initialized(), 'import started a process group'\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=expected,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr


def test_migrated_program_runs_with_plain_python(tmp_path: Path) -> None:
    work = tmp_path / "run"
    shutil.copytree(PROGRAMS / "builder_data_loop" / "expected", work)
    env = {k: v for k, v in os.environ.items() if k not in ("MASTER_ADDR", "RANK", "WORLD_SIZE")}
    done = subprocess.run(
        [sys.executable, "train.py", "--epochs", "1"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("epoch 0 loss ")
    assert (work / "model.pt").exists()


def test_generated_module_starts_with_the_marker() -> None:
    generated = PROGRAMS / "builder_data_loop" / "expected" / "_dp2ddp.py"
    assert generated.read_text().startswith(MARKER)


def test_a_module_shared_by_a_script_and_a_module_entry_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two import names for the generated module would be needed: refuse, write nothing."""
    work = copy_case("module_entry", tmp_path, monkeypatch)
    (work / "run.py").write_text(
        "from pkg.model import build\n\nif __name__ == '__main__':\n    print(build())\n"
    )
    before = snapshot(work)
    result = run("pkg/train.py", "run.py")
    assert result.exit_code == 2
    (line,) = errors(result)
    assert line == (
        "pkg/model.py:1:1: error: shared by several programs that migrate it differently: "
        "the program of run.py is left unmigrated"
    )
    assert snapshot(work) != before  # the first program is migrated; the second is not
    assert (work / "run.py").read_bytes() == before["run.py"]


def test_a_config_attribute_named_like_a_helper_imports_nothing(tmp_path: Path) -> None:
    """HRNet's yacs defaults set `_C.RANK = 0`: an attribute (or keyword) named like a
    generated helper is no use of it; the config module is left byte for byte (it used to
    get `from _dp2ddp import RANK`)."""
    (tmp_path / ".git").mkdir()
    config = "class Node:\n    pass\n\n\n_C = Node()\n_C.RANK = 0\n_C.DEVICE = dict(DEVICE=1)\n"
    (tmp_path / "config.py").write_text(config)
    (tmp_path / "train.py").write_text(
        "import torch.nn as nn\n\nfrom config import _C\n\n"
        "model = nn.DataParallel(nn.Linear(2, 2))\nprint(_C.RANK)\n"
    )
    result = CliRunner().invoke(main, ["migrate", str(tmp_path / "train.py")])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "config.py").read_text() == config
    assert "DistributedDataParallel(" in (tmp_path / "train.py").read_text()


# -- DP034 said once a run ----------------------------------------------------------------------
DP_SCRIPT = (
    "import torch.nn as nn\n"
    "\n"
    "model = nn.DataParallel(nn.Linear(4, 2))\n"
    "print(model(__import__('torch').ones(2, 4)).sum().item())\n"
)


def test_one_entry_among_30_dataparallel_scripts_says_the_others_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other 29 are one DP034 line (the count and the first three), not 29; JSON lists
    each; verify's migration reports them as one line too."""
    from dp2ddp.options import MigrateOptions
    from dp2ddp.verify.project import migrate_copy

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'scripts'\n")
    for index in range(30):
        (tmp_path / f"script_{index:02}.py").write_text(DP_SCRIPT)
    monkeypatch.chdir(tmp_path)
    others = [f"script_{index:02}.py" for index in range(1, 30)]
    before = snapshot(tmp_path)

    result = run("--check", "script_00.py")
    assert result.exit_code == 1
    about = [line for line in result.stderr.splitlines() if any(o in line for o in others)]
    assert len(about) <= 3, about
    (line,) = about
    assert line.startswith("script_00.py:1:1: DP034 ")
    assert "29 DataParallel modules" in line and "and 26 more" in line

    document = json.loads(run("--check", "--output-format", "json", "script_00.py").stdout)
    (entry,) = [f for f in document["files"] if f["path"] == "script_00.py"]  # + _dp2ddp.py
    unreached = [w["message"] for w in entry["warnings"] if w["code"] == "DP034"]
    assert len(unreached) == 29 and all(any(o in m for o in others) for m in unreached)

    github = run("--check", "--output-format", "github", "script_00.py").stdout.splitlines()
    assert len([x for x in github if "title=DP034::" in x]) == 1

    # Two entries named: the 28 others are said once for the run, not once an entry.
    both = run("--check", "script_00.py", "script_01.py").stderr.splitlines()
    assert len([x for x in both if " DP034 " in x]) == 1
    assert snapshot(tmp_path) == before

    project = migrate_copy(tmp_path / "script_00.py", tmp_path.parent / "work", MigrateOptions())
    assert len([w for w in project.warnings if " DP034 " in w]) == 1


def test_machine_formats_say_which_file_is_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """json marks the generated module `created`; github puts no `::error` on a file that
    does not exist yet (the files it would migrate get theirs)."""
    copy_case("builder_data_loop", tmp_path, monkeypatch)
    document = json.loads(run("--check", "--output-format", "json", "train.py").stdout)
    created = {f["path"]: f["created"] for f in document["files"] if f["status"] != "unchanged"}
    assert created == {"train.py": False, "data.py": False, "models.py": False, "_dp2ddp.py": True}
    github = run("--check", "--output-format", "github", "train.py").stdout.splitlines()
    errors = [line for line in github if line.startswith("::error ")]
    assert errors and not any("file=_dp2ddp.py" in line for line in errors)


# -- import helpers in another module (st-gcn's import_class, DP056) ---------------------------
HELPER_MODULE = (
    "def import_class(name):\n"
    "    mod, _, cls = name.rpartition('.')\n"
    "    return getattr(__import__(mod, fromlist=[cls]), cls)\n"
)


@pytest.mark.parametrize(
    ("argument", "migrated"),
    [("'processor.recognition.REC_Processor'", True), ("os.environ['P']", False)],
)
def test_import_helper_in_another_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argument: str, migrated: bool
) -> None:
    """A helper of tools.py imports by its parameter; main.py calls it. With a literal the
    DataParallel module joins the program (through the dotted string); with a run-time name
    the program migrates nothing and the helper's own import call gets DP056, failing
    --check, instead of the silent "unchanged"."""
    work = tmp_path / "work"
    shutil.copytree(PROGRAMS / "import_helper_literal" / "input", work)
    (work / "tools.py").write_text(HELPER_MODULE)
    (work / "main.py").write_text(
        f"import os\n\nfrom tools import import_class\n\nimport_class({argument})([]).start()\n"
    )
    monkeypatch.chdir(work)
    result = run("main.py")
    assert result.exit_code == 0, result.stderr
    io = (work / "processor" / "io.py").read_text()
    assert ("DistributedDataParallel" in io) is migrated
    lines = [line for line in result.stderr.splitlines() if " DP056 " in line]
    if migrated:
        assert not lines, result.stderr
        check = run("--check", "main.py")  # the migration's DP011 is still a finding
        assert check.exit_code == 1 and " DP011 " in check.stderr, check.stderr
        assert run("--check", "--exit-zero", "main.py").exit_code == 0  # nothing to migrate
    else:
        (line,) = lines
        assert line.startswith("tools.py:3:20: DP056 ") and "processor/io.py" in line
        assert run("--check", "main.py").exit_code == 1


def test_a_package_linked_into_the_entrys_folder_is_the_programs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 37 (SsnL/align_uniform@e256d47): `examples/stl10/align_uniform` links to the
    project's `../../align_uniform`, whose loss compares the batch's samples; the linked
    package was outside the root (the entry's folder) and never read, so DP040 was not
    said. Python imports it through the link: it is the program's. A link to a folder of
    the system's is not followed."""
    (tmp_path / "lib" / "pairloss").mkdir(parents=True)
    (tmp_path / "lib" / "pairloss" / "__init__.py").write_text(
        "import torch\n\n\ndef uniform_loss(x):\n"
        "    return torch.pdist(x).pow(2).mul(-2).exp().mean()\n"
    )
    (tmp_path / "ex").mkdir()
    os.symlink(os.path.join("..", "lib", "pairloss"), tmp_path / "ex" / "pairloss")
    (tmp_path / "ex" / "train.py").write_text(
        "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader, "
        "TensorDataset\nfrom pairloss import uniform_loss\n\n"
        "def main():\n"
        "    loader = DataLoader(TensorDataset(torch.randn(32, 4)), batch_size=8)\n"
        "    model = nn.DataParallel(nn.Linear(4, 2))\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for (x,) in loader:\n        loss = uniform_loss(model(x))\n"
        "        optimizer.zero_grad()\n        loss.backward()\n        optimizer.step()\n"
    )
    program = discover_program(str(tmp_path / "ex" / "train.py"))
    assert [m.name for m in program.modules] == ["train", "pairloss"]
    monkeypatch.chdir(tmp_path / "ex")
    result = CliRunner().invoke(main, ["migrate", "--check", "train.py"])
    assert "pairloss/__init__.py:4:" in result.output and "DP040" in result.output, result.output
    os.symlink("/usr/lib", tmp_path / "ex" / "system")
    (tmp_path / "ex" / "train.py").write_text("import system.os\n" + "import torch\n")
    assert [m.name for m in discover_program(str(tmp_path / "ex" / "train.py")).modules] == [
        "train"
    ]
