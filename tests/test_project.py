"""The project model (dp2ddp/program/project.py): a module shared by several programs is read,
analysed and migrated once, and what it is told is one value (dp2ddp/facts.py)."""

from __future__ import annotations

import inspect
from collections import Counter
from pathlib import Path

import pytest

from dp2ddp import migrate_source
from dp2ddp.facts import ProgramFacts
from dp2ddp.migrate.files import migrate_decoded
from dp2ddp.options import MigrateOptions
from dp2ddp.program import migrate as program_migrate
from dp2ddp.program.discovery import ImportGraph, discover_program
from dp2ddp.program.folder import plan_paths
from dp2ddp.transforms.rank_zero.program_hints import ModuleNames, unused_functions

LIBRARY = """\
import torch
from torch.utils.data import DataLoader, TensorDataset


class Model(torch.nn.Module):
    def forward(self, x):
        return x


def loader():
    return DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=2, shuffle=True)


def report(value):
    print("value", value)
"""

ENTRY = """\
import torch
from lib import Model, loader, report


def main():
    model = torch.nn.DataParallel(Model())
    for x in loader():
        report(model(x))


if __name__ == "__main__":
    main()
"""


def _project(tmp_path: Path, entries: int) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "lib.py").write_text(LIBRARY)
    for index in range(entries):
        (tmp_path / f"train_{index}.py").write_text(ENTRY)


def test_migrate_source_takes_the_program_as_one_value() -> None:
    assert list(inspect.signature(migrate_source).parameters) == [
        "source",
        "options",
        "filename",
        "program",
    ]
    library = ProgramFacts("library", True, "_dp2ddp")
    assert library.in_program and not ProgramFacts().in_program
    assert ProgramFacts("library", True, "_dp2ddp") == library  # a value: equal, hashable
    assert hash(ProgramFacts("library", True, "_dp2ddp")) == hash(library)


def test_a_module_shared_by_entries_is_migrated_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, entries=4)
    migrated: Counter[str] = Counter()
    real = migrate_decoded

    def counting(path: str, *args: object, **kwargs: object) -> object:
        migrated[Path(path).name] += 1
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(program_migrate, "migrate_decoded", counting)
    monkeypatch.chdir(tmp_path)
    plan = plan_paths(["."], [], MigrateOptions())
    statuses = {Path(o.path).name: o.status for o in plan.outcomes}
    assert statuses["lib.py"] == "migrated"
    assert all(statuses[f"train_{i}.py"] == "migrated" for i in range(4))
    assert migrated["lib.py"] == 1  # four programs tell it the same: migrated once
    assert all(migrated[f"train_{i}.py"] == 1 for i in range(4))


def test_the_import_graph_reads_each_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, entries=3)
    from dp2ddp.program import discovery

    reads: Counter[str] = Counter()
    real = discovery._read

    def counting(path: str) -> object:
        reads[Path(path).name] += 1
        return real(path)

    monkeypatch.setattr(discovery, "_read", counting)
    graph = ImportGraph()
    programs = [discover_program(str(tmp_path / f"train_{i}.py"), graph) for i in range(3)]
    assert [[m.name for m in p.modules] for p in programs] == [
        [f"train_{i}", "lib"] for i in range(3)
    ]
    assert reads["lib.py"] == 1
    assert programs[0].modules[1] is programs[2].modules[1]


def test_unused_functions_count_reads_in_one_pass() -> None:
    """A module of many functions: each function's own reads are subtracted from one count
    of the module's (no walk of the module per function)."""
    import ast

    functions = "".join(f"def f{i}():\n    return f{i + 1}()\n\n" for i in range(300))
    library = ast.parse(functions + "def last():\n    return last()\n")
    entry = ast.parse("import lib\n")
    (entry_unused, library_unused) = unused_functions([entry, library])
    assert entry_unused == frozenset()
    assert library_unused == {"f0", "last"}  # f1..f299 are read by their neighbour
    summary = ModuleNames.of("lib", library, False)
    assert summary.candidates == ("f0", "last")


def test_a_folder_where_nothing_wraps_has_no_programs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only an isinstance check mentions DataParallel: no gate can open, so no program is
    discovered (no file outside the DataParallel ones is parsed) and each file is migrated
    on its own: the check follows DDP, the script that imports it stays as it is."""
    (tmp_path / "utils.py").write_text(
        "import torch\n\n\ndef unwrap(m):\n"
        "    return m.module if isinstance(m, torch.nn.DataParallel) else m\n"
    )
    (tmp_path / "train.py").write_text("from utils import unwrap\n\nprint(unwrap(1))\n")
    monkeypatch.setattr(program_migrate, "discover_program", _refuse)
    plan = plan_paths([str(tmp_path)], [], MigrateOptions())
    statuses = {Path(o.path).name: o.status for o in plan.outcomes}
    assert statuses == {"utils.py": "migrated", "train.py": "unchanged"}
    assert plan.launch == [] and plan.multi_module == 0
    utils = next(o for o in plan.outcomes if o.path.endswith("utils.py"))
    assert utils.result is not None and "ddp_setup" not in utils.result.code


def _refuse(*args: object) -> None:
    raise AssertionError("no program should be discovered")
