"""verify's texts that named a false cause (stop 51, helper s4): units on inputs built here,
no launch. The line tracer itself is tested in processes of its own (test_verify_reach.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_verify_units import _evidence

from dp2ddp.verify.causes import diagnose
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


def test_updates_world_size_times_name_the_size_mean_warning(tmp_path: Path) -> None:
    """Holmeyoung/crnn-pytorch@dc2f21a train.py:242 (`cost = criterion(preds, text) /
    batch_size`, a CTCLoss mean over `cpu_images.size(0)`): every gradient 2x the original's
    on 2 ranks, and the migration said DP126 there. verify said "a loss or learning rate
    multiplied by WORLD_SIZE" and "Divide the batch, not scale the loss": nothing was
    multiplied, the divisor shrank to the share's size."""
    said = (
        "train.py:242:12: DP126 a mean loss divided by this rank's share of the batch's size",
        "train.py:9:1: DP015 printed on every rank",
    )
    causes = diagnose(_evidence(tmp_path, 2.0, migration_warnings=said))
    assert [c.key for c in causes] == ["size_mean_divisor"]
    assert "= WORLD_SIZE: train.py:242 DP126:" in causes[0].detail
    assert "nothing was multiplied" in causes[0].detail
    assert "Divide the batch" not in causes[0].fix and "train.py:9" not in causes[0].detail


def test_updates_world_size_times_without_a_warning_name_both_ways(tmp_path: Path) -> None:
    causes = diagnose(_evidence(tmp_path, 2.0))
    assert [c.key for c in causes] == ["scaled_by_world_size"]
    assert "multiplied by WORLD_SIZE, or a loss divided by this rank's share" in causes[0].detail
    assert "a division of the loss by the batch's size" in causes[0].fix


def _alike(tmp_path: Path, rank1: list[str], indices: list[list[int]] | None) -> list[Any]:
    tmp_path.mkdir()
    ev = _evidence(tmp_path, 1.0, rank1_inputs=rank1)
    if indices is not None:
        for record, mine in zip(ev.migrated, indices, strict=True):
            record.data["samplers"] = [{"kind": "DistributedSampler", "indices": mine}]
            record.data["loaders"] = [{"sampler": "DistributedSampler", "dataset_class": "Queue"}]
    return diagnose(ev)


def test_alike_samples_at_disjoint_indices_are_the_datasets(tmp_path: Path) -> None:
    """MontaEllis/Pytorch-Medical-Segmentation@fc3193f: a torchio Queue (its __getitem__
    ignores the index) behind a DistributedSampler; verify said "ranks fed overlapping
    samples ... needs its own DistributedSampler" (and, every sample alike, "DistributedSampler
    missing"): the samplers gave the ranks disjoint indices, the samples drawn were alike."""
    same = _alike(tmp_path / "same", ["a"], [[0, 2], [1, 3]])  # every sample alike
    assert [c.key for c in same] == ["alike_at_disjoint_indices"]
    assert "disjoint indices (4 indices in 1 pass, none on two ranks)" in same[0].detail
    assert "Queue does not return one sample per index" in same[0].detail
    assert "The sampler is right" in same[0].fix
    part = _alike(tmp_path / "part", ["a", "b"], [[0, 2], [1, 3]])  # one sample on both
    assert [c.key for c in part] == ["alike_at_disjoint_indices"]


def test_overlapping_indices_keep_the_samplers_cause(tmp_path: Path) -> None:
    """Indices given to two ranks are the sampler's (or its padding's), and a record without
    them (an older run, a sampler of the program's own) says nothing of the indices: the
    causes are those verify named before."""
    for rank1, before in ((["a", "b"], "padded_batch"), (["a"], "sampler_missing")):
        for name, indices in (("o", [[0, 2], [2, 3]]), ("n", None)):
            causes = _alike(tmp_path / f"{name}{len(rank1)}", rank1, indices)
            assert [c.key for c in causes] == [before], (rank1, indices)


_SAMPLER_RECORD = """
import sys
from pathlib import Path
from torch.utils.data import DataLoader, DistributedSampler
from dp2ddp.verify import alignment, protocol
from dp2ddp.verify.recorder import Recorder

options = protocol.RunnerOptions(out=sys.argv[1], steps=1, seed=7, file_attr="x.py")
recorder = Recorder(options, 0, 1, Path(sys.argv[1]))
alignment.install(recorder, seed=7, scale_batch=1)
data = list(range(10))
loaders = [DataLoader(data, batch_size=2, sampler=DistributedSampler(data, 2, r)) for r in (0, 1)]
fed = [[i for batch in loader for i in batch.tolist()] for loader in loaders]
assert [r["indices"] for r in recorder.samplers] == fed, (recorder.samplers, fed)
assert not set(fed[0]) & set(fed[1])
print("ok")
"""


def test_a_distributed_samplers_record_holds_the_indices_it_gave(tmp_path: Path) -> None:
    """In a child: verify's alignment patches torch's samplers for the whole process."""
    result = subprocess.run(
        [sys.executable, "-c", _SAMPLER_RECORD, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.strip() == "ok", result.stderr
