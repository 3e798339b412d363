"""verify on what migrate accepts and on what its own harness does to the original: an
entry with a UTF-8 BOM (V11), verify's seeding said when the original fails under it (V10),
and the migration's warnings named as the candidate causes where no measured cause matched
(issue 28 item 6: PSMNet's masked mean loss, RetinaFace's loss over per-rank counts)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy
import torch
from test_verify_units import _pair, _record

from dp2ddp.options import MigrateOptions
from dp2ddp.verify.alignment import process_seed, seed_everything
from dp2ddp.verify.causes import Evidence, diagnose
from dp2ddp.verify.compare import compare_updates
from dp2ddp.verify.config import DEFAULT_SEED, VerifyConfig, torch_seed
from dp2ddp.verify.failures import seeded_crash_note
from dp2ddp.verify.project import migrate_copy
from dp2ddp.verify.session import prepare_scripts
from dp2ddp.verify.sharding import check_sharding

_PROGRAM = """import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(8, 1, 4, 4), torch.rand(8, 1, 4, 4) * 10), 4)
model = nn.DataParallel(nn.Conv2d(1, 1, 3, padding=1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for inp, gt in loader:
    mask = gt < 8
    out = model(inp)
    loss = F.smooth_l1_loss(out[mask], gt[mask])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


def test_an_entry_with_a_utf8_bom_is_read_as_migrate_reads_it(tmp_path: Path) -> None:
    """srfbn_cvpr19's train.py starts with a BOM: verify said "cannot parse: invalid
    non-printable character U+FEFF" where migrate migrates it."""
    project = tmp_path / "p"
    project.mkdir()
    entry = project / "train.py"
    entry.write_bytes(b"\xef\xbb\xbf" + _PROGRAM.replace("\n", "\r\n").encode())
    work = tmp_path / "work"
    work.mkdir()
    scripts = prepare_scripts(VerifyConfig(original=entry), work)
    assert scripts.original_source == _PROGRAM
    assert "\ufeff" not in scripts.migrated_source and "DistributedDataParallel" in (
        scripts.migrated_source
    )
    assert entry.read_bytes().startswith(b"\xef\xbb\xbf")  # the user's file untouched


def test_verify_seeds_torch_with_a_64_bit_seed_as_a_plain_run_has() -> None:
    """saoyan/generativeskinlesion@d0df9c0 seeds numpy with `torch.initial_seed() // 2**32
    - 1`: -1 with verify's seed 1234 before ("Seed must be between 0 and 2**32 - 1"). Every
    process's seed (the original's, rank 0's, rank 1's) now gives a seed numpy accepts."""
    state = torch.get_rng_state(), random.getstate(), numpy.random.get_state()
    try:
        for rank in (0, 1, 2):
            seed_everything(process_seed(DEFAULT_SEED, rank))
            initial = torch.initial_seed()
            assert 2**32 <= initial < 2**63
            numpy.random.seed(initial // 2**32 - 1)
            numpy.random.seed(initial % 2**32)
        assert torch_seed(DEFAULT_SEED) == torch_seed(DEFAULT_SEED) != torch_seed(7)
    finally:
        torch.set_rng_state(state[0])
        random.setstate(state[1])
        numpy.random.set_state(state[2])


def test_a_crash_of_the_original_says_verifys_seeding_and_the_error_line() -> None:
    traceback = "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "/p/main.py", line 62, in <module>',
            "    gan_trainer = Trainer(arg)",
            '  File "/p/trainer.py", line 22, in _worker_init_fn_',
            "    np.random.seed(np_seed)",
            '  File "numpy/random/mtrand.pyx", line 4831, in numpy.random.mtrand.seed',
            '  File "/v/lib/python3.12/site-packages/numpy/x.py", line 9, in f',
            "    raise ValueError",
            "ValueError: Seed must be between 0 and 2**32 - 1",
        ]
    )
    note = seeded_crash_note(1234, "ValueError: Seed must be between 0", traceback)
    assert "at /p/trainer.py:22: np.random.seed(np_seed)" in note
    assert f"torch.manual_seed({torch_seed(1234)})" in note and "numpy.random.seed(1234)" in note
    assert "Run the original alone" in note


def _uneven_evidence(tmp_path: Path, warnings: tuple[str, ...]) -> Evidence:
    """Updates that differ unevenly, the data split right (a+b = the original's batch)."""
    u = torch.tensor([1e-3, -2e-3, 5e-4, 1e-3])
    original, migrated = _pair(tmp_path, [u], [u * torch.tensor([1.0, 1.3, 0.8, 1.0])])
    ranks = [migrated, _record(1, inputs=[[]])]
    original.data["windows"][0]["inputs"] = {"0": ["a", "b"]}
    migrated.data["windows"][0]["inputs"] = {"0": ["a"]}
    ranks[1].data["windows"][0]["inputs"] = {"0": ["b"]}
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    return Evidence(2, numerics, check_sharding(original, ranks, 1), True, "", original, ranks,
                    [], [], migration_warnings=warnings)  # fmt: skip


def test_not_equivalent_names_the_migrations_warnings_as_candidate_causes(
    tmp_path: Path,
) -> None:
    """PSMNet's shape: a mean loss over a masked selection. verify's own migration warns
    (DP043); no measured signature matches: the verdict names that warning and its line,
    not "no known cause matched"."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "train.py").write_text(_PROGRAM)
    work = tmp_path / "work"
    work.mkdir()
    warnings = migrate_copy(project / "train.py", work, MigrateOptions()).warnings
    assert any(" DP043 " in w for w in warnings), warnings
    (tmp_path / "a").mkdir()
    causes = diagnose(_uneven_evidence(tmp_path / "a", warnings))
    assert [c.key for c in causes] == ["migration_warned"]
    assert "train.py:12 DP043" in causes[0].detail and "DP043" in causes[0].title
    assert "first diverging step 1" in causes[0].detail
    # what verify measures itself (BatchNorm per chunk, DP008; a sampler's epoch, DP011)
    # comes after the rest (FaceBoxes, class v3-C of stop 39: DP043 was shown last)
    (tmp_path / "c").mkdir()
    listed: tuple[str, ...] = (
        "train.py:105:35: DP011 no epoch loop found for sampler.set_epoch",
        "models.py:11:19: DP008 BatchNorm statistics are per process",
        "loss.py:105:19: DP043 mean loss over a count that depends on the data",
    )
    listed += (  # what changes no training update is no candidate (yolov4-tiny, stop 47)
        "train.py:249:9: DP041 some parameters may get no gradient: find_unused_parameters",
        "train.py:333:9: DP015 evaluation metrics not reduced: gen_val is handed to fit()",
        "fit.py:40:9: DP030 running figure printed from this rank's shard: loss",
    )
    (named,) = diagnose(_uneven_evidence(tmp_path / "c", listed))
    assert "(DP043, DP011, DP008)" in named.title
    # a message over several lines (DP047's flow, VAE-Tacotron) is a candidate too
    (tmp_path / "d").mkdir()
    flow = ("train.py:135:54: DP047 a batch reaching the model is not proved: mel_input\n"
            "  comes from np.transpose(ele) (call)",)  # fmt: skip
    (flowed,) = diagnose(_uneven_evidence(tmp_path / "d", flow))
    assert "train.py:135 DP047 a batch reaching the model is not proved: mel_input comes" in (
        flowed.detail
    )
    assert named.detail.index("loss.py:105 DP043") < named.detail.index("train.py:105 DP011")
    # DP034 (a module the run never reaches) is no candidate; nothing left: unexplained
    (tmp_path / "b").mkdir()
    unreached = ("lib.py:3:1: DP034 DataParallel in a module the program does not import",)
    assert [c.key for c in diagnose(_uneven_evidence(tmp_path / "b", unreached))] == ["unexplained"]
