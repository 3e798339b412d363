"""Layers, checked on the import statements (ast; `if TYPE_CHECKING:` imports are no edges).

- A pass imports its own modules, `transforms/analysis/` and `transforms/_support/`, never
  another pass's: what two passes share is an analysis.
- `transforms/analysis/` imports only `_support/` and itself: a question needs no pass.
- `verify/` never imports `commands/`: both sit on the migrate engine.
- No module of dp2ddp is over 700 lines.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "dp2ddp"
TRANSFORMS = PACKAGE / "transforms"
#: Imports across passes still to be moved down (module, imported module): each is named here
#: with where it goes, and the test fails once it is gone, so the list only shrinks.
KNOWN: set[tuple[str, str]] = {
    # the dataset-draw finder (hazards' module_draws) -> transforms/analysis/draws.py
    ("dp2ddp.transforms.shared_draws", "dp2ddp.transforms.hazards.draws"),
    # batches reads the data pass's loader resolution (LoaderImports, plan patterns) and its
    # figure rule (LoaderEvaluation: DP030 for the loops it splits): all go to an analysis
    # of loaders once the data chain is split into planners (review problem 2)
    ("dp2ddp.transforms.batches", "dp2ddp.transforms.data.plan"),
    ("dp2ddp.transforms.batches.loops", "dp2ddp.transforms.data.plan"),
    ("dp2ddp.transforms.batches.loops", "dp2ddp.transforms.data.evaluation"),
}
MAX_LINES = 700


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> Iterator[str]:
    """The dp2ddp modules `path` imports at run time."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.startswith("dp2ddp"):
                yield node.module
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("dp2ddp"))


def _unit(module: str) -> str:
    """`dp2ddp.transforms.rank_zero.facts` -> `rank_zero`; `...transforms.devices` -> `devices`."""
    return module.split(".")[2]


def _edges(root: Path) -> Iterator[tuple[str, str]]:
    for path in sorted(root.rglob("*.py")):
        for imported in _imports(path):
            yield _module_name(path), imported


def test_passes_import_only_analysis_support_and_themselves() -> None:
    crossing = set()
    for module, imported in _edges(TRANSFORMS):
        if module == "dp2ddp.transforms" or not imported.startswith("dp2ddp.transforms."):
            continue
        if _unit(imported) not in (_unit(module), "analysis", "_support"):
            crossing.add((module, imported))
    assert crossing - KNOWN == set(), "a pass imports another pass's internals"
    assert KNOWN - crossing == set(), "moved down: take it off KNOWN"


def test_analysis_needs_no_pass() -> None:
    for module, imported in _edges(TRANSFORMS / "analysis"):
        if imported.startswith("dp2ddp.transforms."):
            assert _unit(imported) in ("analysis", "_support"), (module, imported)


def test_verify_does_not_import_commands() -> None:
    for module, imported in _edges(PACKAGE / "verify"):
        assert not imported.startswith("dp2ddp.commands"), (module, imported)


def test_no_module_over_the_limit() -> None:
    sizes = {
        str(p.relative_to(PACKAGE)): len(p.read_bytes().splitlines()) for p in PACKAGE.rglob("*.py")
    }
    assert {p: n for p, n in sizes.items() if n > MAX_LINES} == {}
