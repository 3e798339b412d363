"""A run with nothing to migrate never loads the migration engine (issue 31: the pre-commit
case, a file without DataParallel, is answered in about 0.1 s, ~python+click).

Timings depend on the machine (benchmarks/bench_noop.py measures them); what makes them
small is structural and is checked here: the CLI runs in a fresh interpreter and reports
which modules it loaded. libcst, jinja2 and the passes must load only when a file needs
them (the text pre-check, migrate/precheck.py, answers first)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Runs the CLI in this interpreter, then prints the modules it imported (as JSON) on stdout.
_PROBE = """
import json, sys
from dp2ddp.cli import main
try:
    main(sys.argv[1:], prog_name="dp2ddp")
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

PLAIN = "import os\n\nfrom torch import nn\n\nmodel = nn.Linear(2, 2)\nprint(os.sep)\n"
HELPER = "import torch\n\n\ndef build():\n    return torch.nn.Linear(2, 2)\n"
ENTRY = "from helper import build\n\nmodel = build()\nfor _ in range(3):\n    model.zero_grad()\n"
DP = "import torch\n\nmodel = torch.nn.DataParallel(torch.nn.Linear(2, 2))\n"
#: Loaded only by the migration engine (or the template renderer).
HEAVY = ("libcst", "jinja2", "dp2ddp.migrate.pipeline", "dp2ddp.templating")


def _modules(cwd: Path, *args: str) -> tuple[int, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    last = done.stdout.strip().splitlines()[-1]
    found = json.loads(last)
    return found["code"], found["modules"]


def _heavy(modules: list[str]) -> list[str]:
    return [
        m
        for m in modules
        if m.split(".")[0] in HEAVY
        or m in HEAVY
        or (m.startswith("dp2ddp.transforms.") and not m.startswith("dp2ddp.transforms._support"))
    ]


@pytest.mark.parametrize(
    "args",
    [
        ("migrate", "--check", "plain.py"),
        ("migrate", "--check", "--jobs", "1", "plain.py", "entry.py"),  # the pre-commit hook
        ("migrate", "--check", "."),
        ("migrate", "--diff", "plain.py"),
        ("migrate", "plain.py"),
        ("migrate", "--check", "--output-format", "json", "entry.py"),
        ("migrate", "--check", "--output-format", "github", "."),
    ],
    ids=["check", "hook", "folder", "diff", "in-place", "json", "github"],
)
def test_nothing_to_migrate_loads_no_engine(tmp_path: Path, args: tuple[str, ...]) -> None:
    (tmp_path / "plain.py").write_text(PLAIN)
    (tmp_path / "helper.py").write_text(HELPER)
    (tmp_path / "entry.py").write_text(ENTRY)  # a program: discovery reads helper.py (ast)
    code, modules = _modules(tmp_path, *args)
    assert code == 0
    assert "dp2ddp.migrate.precheck" in modules  # the run did look at the files
    assert _heavy(modules) == []
    assert (tmp_path / "plain.py").read_text() == PLAIN


def test_a_file_with_dataparallel_loads_the_engine(tmp_path: Path) -> None:
    """The probe sees the engine when there is work (so the test above can fail)."""
    (tmp_path / "train.py").write_text(DP)
    code, modules = _modules(tmp_path, "migrate", "--check", "train.py")
    assert code == 1
    assert "libcst" in modules and "dp2ddp.migrate.pipeline" in modules


def test_an_entry_whose_module_has_dataparallel_is_still_migrated(tmp_path: Path) -> None:
    """The engine stays unloaded only when no module of the program may use DataParallel:
    an entry without it whose imported module wraps a model is a program to migrate."""
    (tmp_path / "helper.py").write_text(
        "import torch\n\n\ndef build():\n    return torch.nn.DataParallel(torch.nn.Linear(2, 2))\n"
    )
    (tmp_path / "entry.py").write_text(ENTRY)
    code, modules = _modules(tmp_path, "migrate", "--check", "entry.py")
    assert code == 1
    assert "libcst" in modules
