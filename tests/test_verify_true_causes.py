"""verify's texts that named a false cause (stop 51, helper s4): units on inputs built here,
no launch. The line tracer itself is tested in processes of its own (test_verify_reach.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dp2ddp.verify.project import ProjectError, copy_project, program_roots


def test_a_project_widened_by_a_sys_path_edit_names_the_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """666DZY666/micronet@c31cdd2: `sys.path.append("../../../..")` in
    micronet/compression/quantization/wqaq/iao/main.py reaches the folder four up; verify
    copies that folder, and its refusal said "(the entry's folder, ...)" of it."""
    work = tmp_path / "work"
    entry_dir = work / "micronet" / "compression" / "quant" / "iao"
    entry_dir.mkdir(parents=True)
    (work / "micronet" / "base").mkdir()
    (work / "micronet" / "__init__.py").write_text("")
    (work / "micronet" / "base" / "__init__.py").write_text("")
    (work / "micronet" / "base" / "op.py").write_text("x = 1\n")
    (work / "big.bin").write_bytes(b"0" * 3000)
    (entry_dir / "main.py").write_text(
        'import sys\nsys.path.append("../../../..")\nfrom micronet.base import op\nprint(op.x)\n'
    )
    monkeypatch.chdir(entry_dir)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    root, found, why = program_roots(Path("main.py"))
    assert (root, found) == (work, entry_dir)
    with pytest.raises(ProjectError) as error:
        copy_project(root, tmp_path / "copy", limit=1000, why=why)
    said = str(error.value)
    assert said.startswith(
        f"{work} (the folder the sys.path edit at micronet/compression/quant/iao/main.py:2 "
        f"('../../../..') reaches from {entry_dir}, the entry's folder, the project verify "
        "copies) holds 3 KiB"
    ), said


def test_a_project_at_its_root_names_the_entrys_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "train.py").write_text("print(1)\n")
    (tmp_path / "big.bin").write_bytes(b"0" * 3000)
    monkeypatch.chdir(tmp_path)
    root, found, why = program_roots(tmp_path / "train.py")
    assert root == found == tmp_path and why == "the entry's folder"
    with pytest.raises(ProjectError, match=r"\(the entry's folder, the project verify copies\)"):
        copy_project(root, tmp_path / "copy", limit=1000, why=why)
