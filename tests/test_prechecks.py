"""The cheap pre-checks that let the project model skip work (docs/performance.md, issue 15)
skip only what would have found nothing: on every golden fixture, program fixture and
example, the answer with the pre-check is the answer without it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

from dp2ddp.program.dynamic_imports import found_calls
from dp2ddp.transforms._support.identifiers import mentions
from dp2ddp.transforms.hazards import module_draws as draws

SOURCES = sorted(
    {
        *FIXTURES.glob("*/*.py"),
        *(ROOT / "tests" / "program_fixtures").rglob("*.py"),
        *(ROOT / "examples").rglob("*.py"),
    }
)


def _texts() -> list[tuple[Path, str]]:
    return [(path, path.read_text(encoding="utf-8")) for path in SOURCES]


def test_there_are_sources() -> None:
    assert len(SOURCES) > 300


def test_draw_precheck_skips_only_modules_without_drawing_helpers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # module_draws reads every text naming `distributions` (stop 63 s1's imported
    # torch.distributions objects) whatever _may_draw says: the precheck skips the others
    skipped = [
        (path, text)
        for path, text in _texts()
        if "distributions" not in text and not draws._may_draw(text)
    ]
    assert len(skipped) > 100
    monkeypatch.setattr(draws, "_may_draw", lambda source: True)
    # libcst's reading finds no drawing helper in them either; it reads the text alone (the
    # path only locates a draw), so a text that several sources hold is read once (about 1
    # in 5 of them: examples' _dp2ddp.py, a fixture's expected.py equal to its input.py)
    first = {text: path for path, text in reversed(skipped)}
    for text, path in first.items():
        assert draws.module_draws("m", str(path), text) == {}, path


def test_draw_precheck_sees_aliases_and_attributes() -> None:
    assert draws._may_draw("from torch import randn as r\ndef f():\n    return r(2)\n")
    assert draws._may_draw("import numpy as np\ndef f():\n    return np.random.choice(3)\n")
    assert draws._may_draw("from random import *\nasync def f():\n    return choice([1])\n")
    assert not draws._may_draw("import torch\ndef f():\n    return torch.zeros(2)\n")
    assert not draws._may_draw("import torch\nx = torch.randn(2)\n")  # no function


def test_import_call_precheck_skips_only_modules_without_import_calls() -> None:
    for path, text in _texts():
        if "import_module" in text or "__import__" in text or re.search(r"\bexec\s*\(", text):
            continue
        assert found_calls(ast.parse(text)) is None, path


def test_mentions_reads_identifiers_as_python_does() -> None:
    """Python reads identifiers NFKC-normalised: a fullwidth spelling is the same name, so
    non-ASCII text is searched normalised; text without the name at all never matches."""
    assert ast.parse("ｉmport_module('m')").body[0].value.func.id == "import_module"  # type: ignore[attr-defined]
    assert mentions("ｉmport_module('m')", "import_module")
    assert mentions("x = 'é'\nimport_module('m')", "import_module")
    assert not mentions("x = 'é'\nprint(x)", "import_module", "__import__")
    assert not mentions("print(1)", "DataLoader")
