"""Golden program fixtures: a project tree in, the migrated tree out (dp2ddp/program/).

tests/program_fixtures/<case>/input/        the DataParallel project
tests/program_fixtures/<case>/args.txt      what follows `dp2ddp migrate` (run in input/)
tests/program_fixtures/<case>/expected/     the whole tree after the migration
tests/program_fixtures/<case>/warnings.txt  every warning line, `path:line:col CODE message`

Each case also checks that every expected file compiles and that a second run changes
nothing (`--check` exits 0). Regenerate after a deliberate change with
DP2DDP_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_examples import _assert_ran, _launch

from dp2ddp.cli import main

PROGRAMS = Path(__file__).parent / "program_fixtures"
CASES = sorted(p.name for p in PROGRAMS.iterdir() if (p / "input").is_dir())
UPDATE = os.environ.get("DP2DDP_UPDATE_GOLDEN") == "1"
WARNING = re.compile(r"^\S+:\d+:\d+: DP\d{3} ")


def tree(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): p.read_text()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def migrate_case(name: str, work: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[str]]:
    """Copy the case's input to `work` and migrate it there: (stderr, warning lines)."""
    case = PROGRAMS / name
    shutil.copytree(case / "input", work)
    monkeypatch.chdir(work)
    args = (case / "args.txt").read_text().split()
    # each module's migration stopped after a minute (they take about a second): a pass whose
    # cost explodes fails here by name (exit 2, "stopped after 60 s"), not at CI's limit
    command = ["migrate", "--file-timeout", "60", *args]
    result = CliRunner().invoke(main, command, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result.stderr, [line for line in result.stderr.splitlines() if WARNING.match(line)]


def test_gradient_penalty_rewrite_is_not_warned_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Migrating the migrated GAN program again changes nothing and does not warn DP023 on
    the penalty an earlier run rewrote (ddp_average_gradients follows it)."""
    work = tmp_path / "work"
    _, warnings = migrate_case("gan_gp_trainer", work, monkeypatch)
    assert not [line for line in warnings if "DP023" in line], warnings
    assert "self.D.module(inter)" in (work / "trainer.py").read_text()
    again = CliRunner().invoke(main, ["migrate", "main.py"], catch_exceptions=False)
    assert again.exit_code == 0, again.stderr
    assert "DP023" not in again.stderr, again.stderr
    assert "DP006" in again.stderr  # the second run did analyse trainer.py


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        # another module stores the attribute from a per-rank value
        (
            "main.py",
            "    print(config)\n",
            '    config.adv_loss = "hinge" if os.environ["RANK"] == "1" else "wgan-gp"\n',
        ),
        # constructed at two places: which one built the trainer could depend on the rank
        ("main.py", "        trainer.train()\n", "        trainer = Trainer(loader, config)\n"),
        # the configuration is not only the command line
        ("parameter.py", "return parser.parse_args()", "return parser.parse_args() or time.time()"),
        # a second star import: get_parameters may come from either module
        ("main.py", "from parameter import *\n", "from parameter import *\nfrom os import *\n"),
    ],
)
def test_config_attribute_not_proven_stays_warned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str, old: str, new: str
) -> None:
    """gan_gp_config's proof that `self.adv_loss` is the same on every rank breaks when any
    link of it does (see dp2ddp/program/uniformity.py): the penalty stays, warned DP023."""
    work = tmp_path / "work"
    shutil.copytree(PROGRAMS / "gan_gp_config" / "input", work)
    source = (work / path).read_text()
    assert old in source
    (work / path).write_text("import os\nimport time\n" + source.replace(old, new, 1))
    monkeypatch.chdir(work)
    result = CliRunner().invoke(main, ["migrate", "main.py"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert "DP023" in result.stderr, result.stderr
    lines = (work / "trainer.py").read_text().splitlines()
    assert "ddp_average_gradients(self.D)" not in [line.strip() for line in lines]


@pytest.mark.e2e
def test_config_conditioned_penalty_runs_under_torchrun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gan_gp_config migrated (the penalty under `if self.adv_loss == "wgan-gp":`, the
    config from another module's parse_args()) runs to its end on two gloo ranks; left as
    it was, the forward after the penalty's backward fails on every rank ("Expected to have
    finished reduction in the prior iteration"). The same launch runs import_helper_literal
    migrated (its DataParallel module reached through `import_class('...')`, st-gcn's shape)
    and import_helper_subproject migrated (the helper in the installable sub-project
    mylib/, installed as `pip install -e mylib` would: its folder on the path), and
    import_helper_installed migrated (the helper from a library outside the project), and
    wrapper_pickled_via_helper migrated (class W2: the wrapped model handed to another
    module's save_checkpoint(), which pickles it whole in a dict): its checkpoint loads in
    a plain `python` process, holds the inner model with rank 0's final weights, and those
    are the weights the original's DataParallel checkpoint held (_assert_inner_pickled)."""
    program = tmp_path / "program"
    shutil.copytree(PROGRAMS / "gan_gp_config" / "expected", program)
    helper = tmp_path / "helper"
    shutil.copytree(PROGRAMS / "import_helper_literal" / "expected", helper)
    subproject = tmp_path / "subproject"
    shutil.copytree(PROGRAMS / "import_helper_subproject" / "expected", subproject)
    installed = tmp_path / "installed"
    shutil.copytree(PROGRAMS / "import_helper_installed" / "expected", installed)
    site = tmp_path / "site"
    site.mkdir()
    (site / "labtools.py").write_text(
        "import importlib\n\n\ndef import_class(path):\n"
        "    module, _, name = path.rpartition('.')\n"
        "    return getattr(importlib.import_module(module), name)\n"
    )
    path = [str(subproject / "mylib"), str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(path))
    scripts = [program / "main.py", helper / "main.py", subproject / "main.py"]
    scripts.append(installed / "main.py")
    pickled = tmp_path / "pickled"
    shutil.copytree(PROGRAMS / "wrapper_pickled_via_helper" / "expected", pickled)
    scripts.append(pickled / "train.py")
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    launch = _launch(prefix, tmp_path / "out", scripts)
    for script in scripts:
        _assert_ran(launch, script, 2)
    for script in (subproject / "main.py", installed / "main.py"):
        assert "final done" in launch.logs(script, 0)
        assert "final done" not in launch.logs(script, 1)
    _assert_inner_pickled(tmp_path, launch.logs(pickled / "train.py", 0))


#: Loads W2's checkpoints as a user would, in a process with no process group.
_LOAD = """
import pickle, sys, torch
for path in sys.argv[1:]:
    c = torch.load(path, weights_only=False)
    m = c["model"]
    print(type(m).__name__, [round(v, 5) for v in m.weight.flatten().tolist()])
with open("weights.pkl", "rb") as f:
    print("pickled", type(pickle.load(f)["model"]).__name__)
"""


def _assert_inner_pickled(tmp_path: Path, rank0: str) -> None:
    """wrapper_pickled_via_helper, run under torchrun by the shared launch (`rank0`: what
    rank 0 printed): the migrated checkpoint loads without a process group and holds the
    inner nn.Linear with rank 0's final weights, equal to those in the DataParallel object
    that the original (run here with plain python) pickled."""
    original = tmp_path / "pickled_original"
    shutil.copytree(PROGRAMS / "wrapper_pickled_via_helper" / "input", original)
    ran = subprocess.run(
        [sys.executable, "train.py"], cwd=original, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    workdir = tmp_path / "out" / "pickled" / "train"
    loaded = subprocess.run(
        [sys.executable, "-c", _LOAD, str(workdir / "checkpoint.tar")],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert loaded.returncode == 0, loaded.stderr
    migrated, pickled_line = loaded.stdout.splitlines()
    assert pickled_line == "pickled Linear"
    kind, weights = migrated.split(" ", 1)
    assert kind == "Linear", migrated
    final = re.search(r"^final (\[.*\])$", rank0, re.M)
    assert final is not None, rank0
    assert weights == final.group(1)
    want = re.search(r"^final (\[.*\])$", ran.stdout, re.M)
    assert want is not None, ran.stdout
    got_values = [float(v) for v in weights.strip("[]").split(",")]
    want_values = [float(v) for v in want.group(1).strip("[]").split(",")]
    assert got_values == pytest.approx(want_values, abs=2e-5)


def test_there_are_program_fixtures() -> None:
    assert len(CASES) >= 6


#: Warnings `--check` does not find again on a migrated program, by fixture (only shrinks).
#: The single-file form (`--inline-helpers`, stdin) is not analysed again by `--check`: no
#: import of the helpers module says it was migrated, so only its markers (the MARKED
#: codes, dp2ddp/migrate/markers.py) remain; DP006 is re-derived in the module form only.
KNOWN_LOST: dict[str, set[str]] = {
    "single_file_inline": {"DP006"},
    # stop 67: DP140 in a library module the migration leaves unchanged (no marker is
    # written there) is not re-derived when the migrated program is checked again
    "s67_lead_size_handed_on_to_callable": {"DP140"},
}


@pytest.mark.parametrize("name", CASES)
def test_program_fixture(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = PROGRAMS / name
    work = tmp_path / "work"
    _, warnings = migrate_case(name, work, monkeypatch)
    got = tree(work)
    warnings_text = "".join(f"{line}\n" for line in warnings)
    if UPDATE:
        shutil.rmtree(case / "expected", ignore_errors=True)
        shutil.copytree(work, case / "expected", ignore=shutil.ignore_patterns("__pycache__"))
        (case / "warnings.txt").write_text(warnings_text)
    assert got == tree(case / "expected")
    assert warnings_text == (case / "warnings.txt").read_text()
    for path, text in got.items():
        if path.endswith(".py"):
            compile(text, path, "exec")
    args = (case / "args.txt").read_text().split()
    again = CliRunner().invoke(main, ["migrate", "--check", *args], catch_exceptions=False)
    # Every warning of the migration is still a finding of --check on the migrated program
    # (re-derived, or its `# dp2ddp:` marker), so --check fails while any is left.
    warned = set(re.findall(r":\d+:\d+: (DP\d+) ", warnings_text))
    found = set(re.findall(r":\d+:\d+: (DP\d+) ", again.stderr))
    kept = warned - KNOWN_LOST.get(name, set())
    assert kept <= found, f"--check loses {sorted(kept - found)}:\n{again.stderr}"
    assert again.exit_code == (1 if kept else 0), f"not a fixed point:\n{again.stderr}"
    # "would migrate" / "would be migrated": a warning's own text may say "would" (DP047
    # re-derived on the second run: "a second split would cut it again")
    assert "would migrate" not in again.stderr, f"not a fixed point:\n{again.stderr}"
    assert "would be migrated" not in again.stderr, f"not a fixed point:\n{again.stderr}"
    assert tree(work) == got


def _migrated_with_pythonpath(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pythonpath_folders_unreached migrated as its shell script would run it: data/ and
    solver/ on PYTHONPATH, relative, as path.sh exports them."""
    work = tmp_path / "work"
    shutil.copytree(PROGRAMS / "pythonpath_folders_unreached" / "input", work)
    monkeypatch.chdir(work)
    path = ["data", "solver", *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(path))
    result = CliRunner().invoke(main, ["migrate", "bin/train.py"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert "DP076" not in result.stderr
    assert "migrated data/loaders.py" in result.output, result.output
    assert "migrated solver/solver.py" in result.output, result.output
    return work


def test_pythonpath_folders_are_part_of_the_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Class X1 (kaituoxu/X-Punctuator, docs/real-world.md stop 34): the folders a shell
    script puts on PYTHONPATH, under the working folder, are searched as Python searches
    them (the root, bin/ here, widens to cover them): the loader is sharded and the
    solver's writes go to rank 0. Without them (the fixture pythonpath_folders_unreached)
    DP076 is said at the imports."""
    work = _migrated_with_pythonpath(tmp_path, monkeypatch)
    assert "DdpDistributedSampler" in (work / "data" / "loaders.py").read_text()
    assert "if ddp_is_main():" in (work / "solver" / "solver.py").read_text()


def _pythonpath_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pythonpath_folders_unreached unmigrated, run from its folder with data/ and solver/ on
    PYTHONPATH (relative), as its shell script would run it."""
    work = tmp_path / "work"
    shutil.copytree(PROGRAMS / "pythonpath_folders_unreached" / "input", work)
    monkeypatch.chdir(work)
    path = ["data", "solver", *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(path))
    return work


def test_verify_migrates_the_pythonpath_folders_in_its_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """verify's copy is migrated with the PYTHONPATH folders moved into it (X1's verify:
    before, the copy's migration missed data/ and solver/, and the migrated run imported the
    user's unmigrated modules, so verify reported failures of a migration that runs right),
    and the user's files are left as they were."""
    from dp2ddp.options import MigrateOptions
    from dp2ddp.verify.in_copy import migrated_environ
    from dp2ddp.verify.project import migrate_copy

    work = _pythonpath_program(tmp_path, monkeypatch)
    before = (work / "data" / "loaders.py").read_text()
    project = migrate_copy(work / "bin" / "train.py", tmp_path / "verify", MigrateOptions())
    assert sorted(project.files) == [
        "bin/_dp2ddp.py",
        "bin/train.py",
        "data/_dp2ddp.py",  # stop 48: a folder on sys.path gets its own (helpers_home.py)
        "data/loaders.py",
        "solver/_dp2ddp.py",
        "solver/solver.py",
    ]
    assert (work / "data" / "loaders.py").read_text() == before
    assert Path.cwd() == work and os.environ["PYTHONPATH"].startswith("data" + os.pathsep)
    path = migrated_environ(work, (project.copy, project.root))["PYTHONPATH"].split(os.pathsep)
    assert path[:2] == [str(project.copy / "data"), str(project.copy / "solver")]


@pytest.mark.e2e
def test_verify_runs_the_pythonpath_program_equivalent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dp2ddp verify --nproc 2` of X1 run with its PYTHONPATH: the copy's migrated modules are
    the ones the migrated run imports, and the updates match DataParallel's."""
    _pythonpath_program(tmp_path, monkeypatch)
    result = CliRunner().invoke(
        main, ["verify", "--nproc", "2", "--steps", "2", "bin/train.py"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output + result.stderr
    assert "EQUIVALENT" in result.output and "NOT EQUIVALENT" not in result.output, result.output


@pytest.mark.e2e
def test_pythonpath_folders_run_under_torchrun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """X1 migrated with its PYTHONPATH runs to the end on two gloo ranks with each rank on
    half of every batch (left as it was, each rank took the whole batch of 8 and both wrote
    the log), the log written once per epoch."""
    work = _migrated_with_pythonpath(tmp_path, monkeypatch)
    path = [str(work / "data"), str(work / "solver"), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, path)))
    script = work / "bin" / "train.py"
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    launch = _launch(prefix, tmp_path / "out", [script])
    _assert_ran(launch, script, 2)
    assert launch.logs(script, 0).count("batch of 4") == 8, launch.logs(script, 0)
    assert "batch of" not in launch.logs(script, 1)
    log = tmp_path / "out" / "bin" / "train" / "exp" / "log.txt"
    assert log.read_text() == "epoch 0\nepoch 1\n"


@pytest.mark.e2e
def test_namespace_package_module_runs_under_torchrun(tmp_path: Path) -> None:
    """Stop 39, v4-B (Tencent/MedicalNet@20f76aa's `from models import resnet`, models/
    without __init__.py): the namespace package's module is the program's and is migrated.
    At 19261f8d it was left (DP076) and both ranks printed every step and saved; now rank 0
    alone prints the 4 steps and saves once, on half of each batch."""
    work = tmp_path / "work"
    shutil.copytree(PROGRAMS / "namespace_package_module" / "expected", work)
    script = work / "train.py"
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    launch = _launch(prefix, tmp_path / "out", [script])
    _assert_ran(launch, script, 2)
    assert launch.logs(script, 0).count("step ") == 4, launch.logs(script, 0)
    assert launch.logs(script, 0).count("saved") == 1
    assert "step " not in launch.logs(script, 1) and "saved" not in launch.logs(script, 1)


@pytest.mark.e2e
def test_config_named_trainer_shards_the_entrys_loader(tmp_path: Path) -> None:
    """Stop 39, v4-G (haoxiangsnr/Wave-U-Net-for-Speech-Enhancement@64e1aa2, `migrate .`):
    the entry builds the loader and hands it to a trainer imported by the name its JSON
    configuration gives (`importlib.import_module(module_cfg["module"])`). At 07b3041a the
    trainer was migrated, the entry left whole: each rank trained on all 16 samples. Now
    the configuration's name is followed: each rank draws its 8, and rank 0 ends on the
    original's weight."""
    original = tmp_path / "original"
    shutil.copytree(PROGRAMS / "importlib_config_file_trainer" / "input", original)
    plain = _launch([sys.executable], tmp_path / "plain", [original / "train.py"])
    _assert_ran(plain, original / "train.py", 1)
    want = plain.logs(original / "train.py", 0)
    assert want.startswith(f"seen {list(range(16))} weight "), want
    work = tmp_path / "work"
    shutil.copytree(PROGRAMS / "importlib_config_file_trainer" / "expected", work)
    script = work / "train.py"
    prefix = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    launch = _launch(prefix, tmp_path / "out", [script])
    _assert_ran(launch, script, 2)
    got = launch.logs(script, 0)
    assert got == f"seen {list(range(0, 16, 2))} weight {want.split()[-1]}\n", got
    assert launch.logs(script, 1) == ""
    for rank in (0, 1):
        status = launch.status(script, rank)
        assert status is not None and status["indices"] == 8, status


def test_migrated_library_imports_from_another_entry_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stop 47 (datawhalechina/torch-rechub@5a73b2e: migrating examples/ranking/<entry>.py
    made torch_rechub/trainers/*.py import `_dp2ddp`, created in examples/ranking/): the
    library's module imports its helpers from its own package's generated module
    (`mylib._dp2ddp`), so another example folder, not migrated, still imports it (at
    c74ef96e: ModuleNotFoundError: No module named '_dp2ddp'); migrating that entry too
    leaves the library as it is and the entry trains as a world of one."""
    work = tmp_path / "work"
    migrate_case("library_package_two_entry_folders", work, monkeypatch)
    assert (work / "mylib" / "_dp2ddp.py").is_file()
    other = work / "examples" / "matching"
    code = "import sys; sys.path.insert(0, '../..'); import mylib.trainer; print('imported')"
    ran = subprocess.run(
        [sys.executable, "-B", "-c", code], cwd=other, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0 and "imported" in ran.stdout, ran.stderr
    library = (work / "mylib" / "trainer.py").read_text()
    again = CliRunner().invoke(
        main, ["migrate", "examples/matching/run.py"], catch_exceptions=False
    )
    assert again.exit_code == 0, again.stderr
    assert (work / "mylib" / "trainer.py").read_text() == library
    ran = subprocess.run(
        [sys.executable, "-B", "run.py"], cwd=other, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0 and "weights -0.1664" in ran.stdout, ran.stderr


def test_migrated_tree_is_a_fixed_point_for_scripts_without_wrap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stop 55 v1-D (foamliu/Listen-Attend-Spell-v2): a script without DataParallel that
    imports a migrated module (`from _dp2ddp import DEVICE` in config.py) was left alone by
    the first run and is by `--check` after it: named alone or in the folder, the check
    exits 1 for the one marker left in the module it imports (DP011), never 2 ("shared by
    several programs that migrate it differently") nor "would migrate" (demo.py, the
    generated _dp2ddp.py)."""
    work = tmp_path / "work"
    migrate_case("migrated_tree_script_without_wrap", work, monkeypatch)
    before = tree(work)
    for target in ("demo.py", "."):
        again = CliRunner().invoke(main, ["migrate", "--check", target], catch_exceptions=False)
        assert again.exit_code == 1, again.stderr
        assert "would" not in again.stderr and "error" not in again.stderr, again.stderr
        found = re.findall(r"^(\S+):\d+:\d+: (DP\d+) ", again.stderr, re.M)
        assert found == [("data.py", "DP011")], again.stderr
    assert tree(work) == before
