"""verify's causes that were false or missing, stop 53 helper w3 (docs/real-world.md, "Stop 53 —
verify's true causes"): units on evidence built here, no launch."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import torch
from test_verify_units import _batchnorm_evidence, _ConvBN, _cutmix_evidence, _evidence
from test_verify_units import replica_recorder as _replica_recorder

from dp2ddp.verify import probes
from dp2ddp.verify.causes import diagnose
from dp2ddp.verify.recorder import Recorder
from dp2ddp.verify.replicas import chunked_forward
from dp2ddp.verify.sharding import check_sharding
from dp2ddp.verify.toend import check_output, to_end_causes


def test_same_data_where_migrate_said_dp047_names_that_line(tmp_path: Path) -> None:
    """A batch migrate could not prove to be this rank's part (DP047) and every rank trained
    on the same data: the cause is DP047's line, not a DistributedSampler to add."""
    said = ("train.py:186:17: DP047 a batch reaching the model is not proved: every rank",)
    causes = diagnose(_evidence(tmp_path, 1.0, rank1_inputs=["a"], migration_warnings=said))
    assert [c.key for c in causes] == ["batches_not_split"]
    assert "train.py:186 DP047" in causes[0].detail


def _regrouped(tmp_path: Path) -> object:
    """roatienza/deep-text-recognition-benchmark@fb06d18's shape: two sharded loaders (MJ, ST)
    whose batches are concatenated: DataParallel's chunks are MJ's rows then ST's, each rank
    holds one of each. The rows are right (sharding ok), the BatchNorm groups are not."""
    ev = _batchnorm_evidence(tmp_path, 1)
    whole = [list("abcd"), list("efgh"), list("ijkl")]
    for i, window in enumerate(ev.original.data["windows"]):
        window.update(forwards={"0": [4]}, inputs={"0": whole[i]})
    for rank in ev.migrated:
        for i, window in enumerate(rank.data["windows"]):
            mine = whole[i][rank.rank :: 2]  # a+c on rank 0: one MJ, one ST row
            window.update(forwards={"0": [2]}, inputs={"0": mine}, batchnorm=12)
    warnings = ("train.py:171:9: DP008 BatchNorm statistics are per process",)
    return dataclasses.replace(
        ev,
        sharding=check_sharding(ev.original, ev.migrated, 3),
        migration_warnings=warnings,
    )


def test_batchnorm_over_regrouped_rows_is_named_with_dp008(tmp_path: Path) -> None:
    """Before: the ranks' DistributedSamplers (a per-rank batch) counted as DataParallel's
    chunks and the cause was "no measured cause matched"; the groups are measured first."""
    ev = _regrouped(tmp_path)
    assert not ev.sharding.failed  # type: ignore[attr-defined]
    causes = diagnose(ev)  # type: ignore[arg-type]
    keys = [c.key for c in causes]
    assert "batchnorm" in keys and "migration_warned" not in keys, keys
    cause = next(c for c in causes if c.key == "batchnorm")
    assert "whose samples are not a rank's share" in cause.detail
    assert "DP008 (BatchNorm statistics per process) at train.py:171" in cause.detail
    assert "--freeze-batchnorm" in cause.fix


def test_batchnorm_on_dataparallels_chunks_is_still_aligned(tmp_path: Path) -> None:
    """The same run with each rank on DataParallel's contiguous chunk: no BatchNorm cause."""
    ev = _regrouped(tmp_path)
    for rank in ev.migrated:  # type: ignore[attr-defined]
        for window in rank.data["windows"]:
            whole = next(
                w["inputs"]["0"]
                for w in ev.original.data["windows"]  # type: ignore[attr-defined]
                if w["index"] == window["index"]
            )
            window["inputs"] = {"0": whole[2 * rank.rank : 2 * rank.rank + 2]}
    causes = diagnose(ev)  # type: ignore[arg-type]
    assert "batchnorm" not in [c.key for c in causes]


def test_changed_inputs_name_the_positional_pairing(tmp_path: Path) -> None:
    """alinlab/cs-kd@b447f25: a pair batch sampler (samples, then partners) and the loop's
    `inputs[:bs // 2]`; the cause said "the script changes each batch after loading" and not
    DP082, the line migrate had warned at."""
    said = ("train.py:134:16: DP082 batch rows read by position in a batch a sampler composed",)
    ev = dataclasses.replace(_cutmix_evidence(tmp_path, rng=False), migration_warnings=said)
    cause = next(c for c in diagnose(ev) if c.key == "inputs_changed")
    assert "DP082 (rows read by position in a composed batch) at train.py:134" in cause.detail
    (tmp_path / "b").mkdir()
    plain = next(c for c in diagnose(_cutmix_evidence(tmp_path / "b", rng=False)))
    assert plain.key == "inputs_changed" and "DP082" not in plain.detail


def test_a_print_a_count_decides_names_dp092() -> None:
    """stop 51 s1-B: `kept 32` printed when a count of samples passes a threshold; DP092 said
    the count is this rank's; the fix was "Keep the original's prints", the print was kept."""
    output = check_output("kept 32\nstep 1\n", ["step 1\n", ""])
    plain = to_end_causes(output, {}, str)
    assert [c.key for c in plain] == ["output_missing"]
    assert "Keep the original's prints" in plain[0].fix
    said = ("train.py:40:9: DP092 a count of samples from this rank's batches decides",)
    causes = to_end_causes(output, {}, str, warnings=said)
    assert [c.key for c in causes] == ["output_missing"]
    assert "DP092 at train.py:40" in causes[0].detail
    assert "Keep the original's prints" not in causes[0].fix and "DP092" in causes[0].fix


class _Masked(_ConvBN):
    """TengdaHan/DPC@1592e5f model_3d.py:86-96's shape: a mask built once for the batch it
    first sees and kept on `self`; a figure set in forward (`self.last`) read after it."""

    def __init__(self) -> None:
        super().__init__()
        self.mask: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.mask is None:
            self.mask = torch.ones(x.size(0), 2)
        out = super().forward(x) * self.mask
        self.last = out.detach()
        return out


replica_recorder = _replica_recorder  # the fixture (test_verify_units.py)


def test_replicas_keep_nothing_forward_sets_on_self(replica_recorder: Recorder) -> None:
    """DataParallel's replicas are fresh copies each forward: the 4-row mask chunk 0 set is
    not the module's after the chunked forward (before: kept, and the next whole-batch forward
    of 8 rows crashed the original under verify alone, "the original failed under verify's
    seeding"). An attribute the module did not have is replica 0's (rank 0's)."""
    torch.manual_seed(0)
    model = _Masked()
    probes.install(replica_recorder, False, False, batchnorm_chunks=2, dropout_chunks=2)
    x = torch.randn(8, 3, 6, 6)
    done, out = chunked_forward(replica_recorder, torch.nn.Module.__call__, model, (x,), {})
    assert done and out.shape == (8, 2)
    assert model.mask is None
    assert model.last.shape == (4, 2) and torch.equal(model.last, out[:4].detach())
    model.eval()
    assert model(x).shape == (8, 2)  # the whole batch, as DataParallel's module would
