"""program/import_reach.py: which program modules each module imports, through others too."""

from __future__ import annotations

from pathlib import Path

from dp2ddp.program.discovery import discover_program
from dp2ddp.program.import_reach import reached


def _reached(root: Path, files: dict[str, str], targets: set[str]) -> dict[str, frozenset[str]]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return reached(discover_program(str(root / "main.py")), targets)


def test_a_package_import_reaches_what_its_init_imports(tmp_path: Path) -> None:
    found = _reached(
        tmp_path,
        {
            "main.py": "import pkg\nimport helper\n",
            "pkg/__init__.py": "from . import models\n",
            "pkg/models.py": "import torch\n",
            "helper.py": "# names pkg.models and main in text only\nimport os\n",
        },
        {"pkg.models", "main", "helper"},
    )
    assert found["main"] == {"pkg.models", "helper"}
    assert found["pkg"] == {"pkg.models"}
    assert found["helper"] == frozenset()  # its text names them; it imports neither
    assert found["pkg.models"] == frozenset()


def test_a_cycle_of_imports_reaches_each_member(tmp_path: Path) -> None:
    found = _reached(
        tmp_path,
        {
            "main.py": "import a\n",
            "a.py": "import b\n",
            "b.py": "import c\n",
            "c.py": "import a\nfrom d import f\n",
            "d.py": "def f():\n    pass\n",
        },
        {"a", "b", "c", "d", "main"},
    )
    assert found["main"] == {"a", "b", "c", "d"}
    assert found["a"] == found["b"] == found["c"] == {"a", "b", "c", "d"}
    assert found["d"] == frozenset()


def test_a_long_import_chain_needs_no_recursion(tmp_path: Path) -> None:
    files = {f"m{i}.py": f"import m{i + 1}\n" for i in range(1500)}
    files["main.py"] = "import m0\n"
    files["m1500.py"] = "x = 1\n"
    found = _reached(tmp_path, files, {"m1500"})
    assert found["main"] == {"m1500"} and found["m0"] == {"m1500"}
