"""`dp2ddp verify`'s parts without launching anything: slicing, numerics, sharding, causes,
static scan, rendering, the command line, and ending process trees."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import os
import subprocess
import sys
import time
from array import array
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.utils.checkpoint
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from dp2ddp.cli import main
from dp2ddp.verify import arrays, fingerprint, probes, protocol, render, replicas, scan
from dp2ddp.verify.arrays import Vector
from dp2ddp.verify.causes import Evidence, diagnose
from dp2ddp.verify.compare import StepDiff, compare_updates, fit_scale, rank_sync
from dp2ddp.verify.compare import rounding_note as compare_rounding_note
from dp2ddp.verify.config import VerifyConfig
from dp2ddp.verify.digest import sample_digests
from dp2ddp.verify.fingerprint import sample_tensor
from dp2ddp.verify.proctree import ProcessTree, _start_time
from dp2ddp.verify.recorder import Recorder, rng_digest, save_tensors
from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.replicas import chunked_forward
from dp2ddp.verify.report import Cause, Failure, ParamRow, VerifyReport
from dp2ddp.verify.sharding import (
    LOADER,
    MISMATCH,
    NOT_CHECKED,
    OK,
    OVERLAP,
    SAME_DATA,
    Sharding,
    StepShards,
    check_sharding,
)
from dp2ddp.verify.slicing import pad_like_distributed_sampler, rank_indices


# -- slicing ---------------------------------------------------------------------------------
@given(
    n=st.integers(1, 200),
    world=st.integers(1, 8),
    per_rank=st.integers(1, 16),
    drop_last=st.booleans(),
)
def test_rank_slices_rebuild_the_original_batches(
    n: int, world: int, per_rank: int, drop_last: bool
) -> None:
    order = list(reversed(range(n)))  # any permutation
    num_samples = n // world if drop_last else -(-n // world)
    if num_samples == 0:
        return
    padded = pad_like_distributed_sampler(order, num_samples * world, drop_last)
    ranks = [rank_indices(padded, r, world, num_samples, per_rank) for r in range(world)]
    assert all(len(mine) == num_samples for mine in ranks)
    global_batch = per_rank * world
    for step in range(num_samples // per_rank):  # full per-rank batches
        batches = [mine[step * per_rank : (step + 1) * per_rank] for mine in ranks]
        # rank r holds the r-th contiguous slice: DataParallel's scatter chunk r
        assert [i for b in batches for i in b] == padded[
            step * global_batch : (step + 1) * global_batch
        ]
    assert sorted(i for mine in ranks for i in mine) == sorted(padded)


def test_without_a_batch_size_the_native_stride_is_kept() -> None:
    order = list(range(10))
    assert rank_indices(order, 1, 2, 5, None) == order[1::2]
    with pytest.raises(ValueError):
        rank_indices(order, 0, 3, 5, 2)


# -- synthetic records -----------------------------------------------------------------------
def _record(
    rank: int = 0,
    inputs: list[list[str]] | None = None,
    hashes: list[str] | None = None,
    hyper: dict[str, Any] | None = None,
    windows: list[dict[str, Any]] | None = None,
    samplers: list[dict[str, Any]] | None = None,
    tmp: Path | None = None,
    updates: list[dict[str, torch.Tensor]] | None = None,
    init: dict[str, torch.Tensor] | None = None,
) -> RankRecord:
    steps = len(inputs) if inputs is not None else len(updates or [])
    wins = windows or [
        {"index": i + 1, "inputs": {"0": (inputs or [[]] * steps)[i]}, "dropout": 0,
         "batchnorm": 0, "rng_consumed": None}
        for i in range(steps)
    ]  # fmt: skip
    events = [
        {"index": i + 1, "optimizer": 0, "optimizer_step": i + 1, "class": "SGD",
         "hyper": [hyper or {"lr": 0.1}],
         "param_hashes": {"o0.g0.p0": (hashes or ["h"] * steps)[i]}}
        for i in range(steps)
    ]  # fmt: skip
    directory = tmp or Path("/nonexistent")
    if updates is not None and tmp is not None:
        save_tensors(
            tmp / protocol.TENSORS,
            init or {"o0.g0.p0": torch.zeros(4)},
            updates,
            [{"o0.g0.p0": 1.0}] * len(updates),
        )
    data = {
        "status": protocol.STOPPED,
        "events": events,
        "windows": wins,
        "names": {"o0.g0.p0": "fc.weight"},
        "shapes": {"o0.g0.p0": [4]},
        "samplers": samplers or [],
        "wrappers": [],
    }
    return RankRecord(rank, directory, protocol.STOPPED, data, {}, "", "")


# -- sharding --------------------------------------------------------------------------------
def test_sharding_ok_when_ranks_split_the_batch() -> None:
    original = _record(inputs=[["a", "b", "c", "d"]])
    ranks = [_record(0, inputs=[["a", "b"]]), _record(1, inputs=[["c", "d"]])]
    result = check_sharding(original, ranks, 1)
    assert result.status == OK and not result.failed
    assert "disjoint" in result.describe()


def test_sharding_same_data_on_every_rank() -> None:
    original = _record(inputs=[["a", "b", "c", "d"]])
    ranks = [_record(0, inputs=[["a", "b"]]), _record(1, inputs=[["a", "b"]])]
    result = check_sharding(original, ranks, 1)
    assert result.status == SAME_DATA and result.failed
    assert "every rank fed the same samples" in result.describe()


def test_samples_told_apart_by_a_later_input_when_the_first_holds_one_value_each() -> None:
    """ming024/FastSpeech2@d4e79eb's `model(speakers, texts, lengths)`: every speaker id 0.
    Hashed alone, the ids made every rank's samples "the same"; the texts tell them apart,
    for the model's arguments and for a loader's batch of the same tensors alike."""
    speakers = torch.zeros(4, dtype=torch.long)
    texts = torch.arange(12).reshape(4, 3)
    lengths = torch.tensor([3, 2, 3, 1])
    assert sample_tensor(((speakers, lengths, 7, texts), {})) is texts
    assert sample_tensor([speakers, texts, torch.randn(4, 1)]) is texts
    assert sample_tensor(((texts, speakers), {})) is texts  # the first already tells
    assert sample_tensor(((speakers, lengths), {})) is speakers  # nothing tells better
    assert sample_tensor(((speakers, torch.randn(3, 5)), {})) is speakers  # another size


def test_a_dict_of_feature_columns_is_told_apart_by_its_rows() -> None:
    """datawhalechina/torch-rechub@5a73b2e: DeepFM fed `{name: tensor(B)}`, the first column
    a sparse id (0 for every sample here), the rows told apart by a later column. The first
    column alone made the ranks' different halves "the same data"; a sample is its row
    across the dict's columns, alike in the model's arguments and the loader's `(x, y)`
    batch (whose `y` does not join: the model is not fed it)."""
    x = {"sparse": torch.zeros(4, dtype=torch.long), "dense": torch.tensor([0.0, 0.1, 0.2, 0.3])}
    y = torch.tensor([1.0, 0.0, 1.0, 0.0])
    fed = fingerprint.sample_rows(((x,), {}), x["sparse"])
    assert len(set(fed)) == 4
    assert fingerprint.sample_rows((x, y), x["sparse"]) == fed  # loaded as fed
    halves = [{k: v[i * 2 : i * 2 + 2] for k, v in x.items()} for i in range(2)]
    rank_rows = [fingerprint.sample_rows(((h,), {}), h["sparse"]) for h in halves]
    assert rank_rows[0] + rank_rows[1] == fed  # DataParallel's scatter: rows, not columns
    original = _record(inputs=[fed])
    ranks = [_record(r, inputs=[rank_rows[r]]) for r in range(2)]
    assert check_sharding(original, ranks, 1).status == OK
    # a tuple of ids and labels joins nothing: the model may be fed the ids alone
    ids = torch.zeros(4, dtype=torch.long)
    assert fingerprint.sample_rows((ids, y), ids) == sample_digests(ids)


_TRACED_PROBE = """
import sys
from pathlib import Path
import torch
from dp2ddp.verify import fingerprint, protocol
from dp2ddp.verify.recorder import Recorder

options = protocol.RunnerOptions(out=sys.argv[1], steps=1, seed=0, file_attr="x.py")
recorder = Recorder(options, 0, 1, Path(sys.argv[1]))
fingerprint.install(recorder)
model = torch.nn.Linear(3, 2)
torch.jit.trace(model, torch.randn(2, 3))  # a graph for TensorBoard, on rank 0 alone
wrapped = torch.nn.DataParallel(model)
wrapped(torch.randn(4, 3)).sum().backward()
print(sorted((k, len(v)) for k, v in recorder.current.inputs.items()))
"""


def test_a_traced_forward_is_no_training_forward(tmp_path: Path) -> None:
    """bubbliiiing/yolov4-tiny-pytorch@1f2a5b9's `add_graph(model, torch.randn(2, ...))` on
    rank 0 alone: recorded, its 2 samples were model 0 in the original and on rank 0, the
    wrapper model 0 on rank 1 ("original: 2 samples" for batches of 4). Runs in a child:
    the fingerprint patches nn.Module.__call__ for the whole process."""
    result = subprocess.run(
        [sys.executable, "-c", _TRACED_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.strip() == "[('0', 4)]", result.stderr


def test_sharding_undivided_batch_and_overlap() -> None:
    original = _record(inputs=[["a", "b"]])
    ranks = [_record(0, inputs=[["a", "b"]]), _record(1, inputs=[["c", "d"]])]
    undivided = check_sharding(original, ranks, 1)
    assert undivided.status == MISMATCH and undivided.undivided
    ranks = [_record(0, inputs=[["a", "b"]]), _record(1, inputs=[["b", "c"]])]
    overlapping = check_sharding(_record(inputs=[["a", "b", "c", "d"]]), ranks, 1)
    assert overlapping.status == OVERLAP


def test_sharding_padding_and_duplicate_samples() -> None:
    # the last batch of 3 padded to 2+2 by repeating the epoch's first sample
    padded = check_sharding(
        _record(inputs=[["x", "y", "z"]]),
        [_record(0, inputs=[["x", "y"]]), _record(1, inputs=[["z", "x"]])],
        1,
    )
    assert padded.failed and padded.padded
    # a dataset with two identical samples split across ranks is fine
    twins = check_sharding(
        _record(inputs=[["t", "t", "u", "v"]]),
        [_record(0, inputs=[["t", "u"]]), _record(1, inputs=[["t", "v"]])],
        1,
    )
    assert twins.status == OK


def test_sharding_not_checked_without_inputs() -> None:
    result = check_sharding(_record(inputs=[[]]), [_record(0, inputs=[[]])], 1)
    assert result.status == NOT_CHECKED and not result.failed
    assert "not checked" in result.describe()


# -- numerics --------------------------------------------------------------------------------
def _pair(
    tmp_path: Path, u_o: list[torch.Tensor], u_m: list[torch.Tensor]
) -> tuple[RankRecord, RankRecord]:
    (tmp_path / "o").mkdir()
    (tmp_path / "m").mkdir()
    original = _record(tmp=tmp_path / "o", updates=[{"o0.g0.p0": u} for u in u_o])
    migrated = _record(tmp=tmp_path / "m", updates=[{"o0.g0.p0": u} for u in u_m])
    return original, migrated


def test_updates_within_float_noise_pass(tmp_path: Path) -> None:
    u = torch.tensor([1e-3, -2e-3, 5e-4, 1e-3])
    original, migrated = _pair(tmp_path, [u, u], [u * (1 + 1e-7), u])
    numerics = compare_updates(original, migrated, rtol=1e-4, atol=1e-8)
    assert numerics.passed and numerics.steps_compared == 2
    assert numerics.first_diverging_step is None


def test_halved_updates_fail_with_a_uniform_ratio(tmp_path: Path) -> None:
    u = torch.tensor([1e-3, -2e-3, 5e-4, 1e-3])
    original, migrated = _pair(tmp_path, [u], [u / 2])
    numerics = compare_updates(original, migrated, rtol=1e-4, atol=1e-8)
    assert not numerics.passed and numerics.first_diverging_step == 1
    assert numerics.scale.uniform and numerics.scale.ratio == pytest.approx(0.5)
    worst = numerics.worst()[0]
    assert worst.name == "fc.weight" and worst.rel_error == pytest.approx(0.5)


def test_fit_scale_rejects_direction_changes() -> None:
    a = {"p": _vector(1.0, 0.0), "q": _vector(0.0, 1.0)}
    assert not fit_scale(a, {"p": _vector(0.0, 1.0), "q": _vector(0.0, 1.0)}).uniform
    assert fit_scale(a, {"p": _vector(3.0, 0.0), "q": _vector(0.0, 3.0)}).uniform


def _vector(*values: float) -> Vector:
    return Vector((len(values),), array("d", values))


def test_rank_sync_names_the_first_divergence() -> None:
    ranks = [_record(0, inputs=[[], []], hashes=["a", "b"]),
             _record(1, inputs=[[], []], hashes=["a", "c"])]  # fmt: skip
    ok, detail = rank_sync(ranks, 2)
    assert not ok and "after step 2, rank 1's fc.weight" in detail


# -- causes ----------------------------------------------------------------------------------
def _evidence(tmp_path: Path, ratio: float, **changes: Any) -> Evidence:
    u = torch.tensor([1e-3, -2e-3, 5e-4, 1e-3])
    original, migrated = _pair(tmp_path, [u], [u * ratio])
    if "hyper" in changes:
        migrated.data["events"][0]["hyper"] = [changes.pop("hyper")]
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    ranks = [migrated, _record(1, inputs=[[]])]
    for run in ranks:  # a migrated run wraps its model (test_ranks_apart_says_when_no_rank...)
        run.data["wrappers"] = [{"class": "DistributedDataParallel", "devices": 0, "dim": 0}]
    original.data["windows"][0]["inputs"] = {"0": ["a", "b"]}
    migrated.data["windows"][0]["inputs"] = {"0": ["a"]}
    ranks[1].data["windows"][0]["inputs"] = {"0": changes.pop("rank1_inputs", ["b"])}
    for key, value in changes.pop("window", {}).items():
        original.data["windows"][0][key] = value
    return Evidence(
        world=2,
        numerics=numerics,
        sharding=check_sharding(original, ranks, 1),
        in_sync=changes.pop("in_sync", True),
        sync_detail=changes.pop("sync_detail", ""),
        original=original,
        migrated=ranks,
        findings_original=scan.scan(changes.pop("source", "")),
        findings_migrated=[],
        **changes,
    )


def test_cause_sum_loss_from_an_update_ratio_of_one_over_world(tmp_path: Path) -> None:
    causes = diagnose(_evidence(tmp_path, 0.5, source="crit = nn.MSELoss(reduction='sum')\n"))
    assert [c.key for c in causes] == ["sum_loss"]
    assert "line 1" in causes[0].detail


def test_cause_learning_rate_from_hyperparameters(tmp_path: Path) -> None:
    causes = diagnose(_evidence(tmp_path, 2.0, hyper={"lr": 0.2}))
    assert [c.key for c in causes] == ["lr_changed"]
    assert "lr 0.1 in the original, 0.2 in the migration" in causes[0].detail


def test_cause_learning_rate_moved_by_a_schedule_says_so(tmp_path: Path) -> None:
    """stop 49 b3-C (WenbinLee/DN4@440857b): the same lr until step 3, then another; the fix
    text no longer says "the global batch is unchanged"."""
    ev = _evidence(tmp_path, 2.0, hyper={"lr": 0.2})
    ev.numerics.hyper[0] = dataclasses.replace(ev.numerics.hyper[0], step=3)
    causes = diagnose(ev)
    assert [c.key for c in causes] == ["lr_changed"]
    assert "from step 3 (the same before it)" in causes[0].detail
    assert "schedule" in causes[0].fix and "unchanged" not in causes[0].fix


def test_cause_sampler_missing_even_when_numbers_match(tmp_path: Path) -> None:
    causes = diagnose(_evidence(tmp_path, 1.0, rank1_inputs=["a"]))
    assert [c.key for c in causes] == ["sampler_missing"]
    assert "not data-parallel" in causes[0].detail


def test_cause_of_the_same_data_is_the_warning_migrate_said(tmp_path: Path) -> None:
    """V2 (kaituoxu/PyTorch-ASR-AM, stop 34): every rank trained on the same streams and the
    migration had said so (DP001 at a dim=1 wrap with no split); the cause is that warning's
    line, not a DistributedSampler for a program with no DataLoader."""
    said = ("train.py:41:9: DP001 DataParallel(dim=1); no batch of this module split",)
    causes = diagnose(_evidence(tmp_path, 1.0, rank1_inputs=["a"], migration_warnings=said))
    assert [c.key for c in causes] == ["batches_not_split"]
    assert "train.py:41 DP001" in causes[0].detail and "DataLoader" not in causes[0].fix
    other = ("train.py:7:1: DP008 BatchNorm statistics are per process",)
    (tmp_path / "b").mkdir()
    causes = diagnose(_evidence(tmp_path / "b", 1.0, rank1_inputs=["a"], migration_warnings=other))
    assert [c.key for c in causes] == ["sampler_missing"]


# -- adaptive optimizers and amplified rounding (issue 16: retinanet, ResNeXt) -------------
_ADAM = {"lr": 1e-3, "betas": [0.9, 0.999], "eps": 1e-8}


def _graded_pair(
    tmp_path: Path,
    u_o: list[torch.Tensor],
    u_m: list[torch.Tensor],
    g_o: list[torch.Tensor],
    g_m: list[torch.Tensor],
    hyper: dict[str, Any],
) -> tuple[RankRecord, RankRecord]:
    """Two records with updates and the gradients the optimizer received at each step."""
    records = []
    for name, updates, grads in (("o", u_o, g_o), ("m", u_m, g_m)):
        (tmp_path / name).mkdir(parents=True)
        record = _record(tmp=tmp_path / name, updates=[{"o0.g0.p0": u} for u in updates],
                         hyper=hyper)  # fmt: skip
        save_tensors(tmp_path / name / protocol.TENSORS, {"o0.g0.p0": torch.zeros(4)},
                     [{"o0.g0.p0": u} for u in updates], [{"o0.g0.p0": 1.0}] * len(updates),
                     [{"o0.g0.p0": g} for g in grads])  # fmt: skip
        records.append(record)
    return records[0], records[1]


def _adam_steps(noise: float) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """Two steps of Adam (lr 1e-3) from one gradient stream, and from the same stream with a
    rounding-sized change (`noise`, absolute) in its near-zero elements: the updates of those
    elements differ by up to lr at step 2, the gradients by ~1e-9 relative."""
    grads = [torch.tensor([1e-2, -2e-2, 3e-9, 1e-2]), torch.tensor([1e-2, -2e-2, -2e-9, 1e-2])]
    streams = []
    for change in (0.0, noise):
        p = torch.zeros(4, requires_grad=True)
        opt = torch.optim.Adam([p], lr=1e-3)
        updates = []
        for g in grads:
            before = p.detach().clone()
            p.grad = g + torch.tensor([0.0, 0.0, change, 0.0])
            opt.step()
            updates.append(p.detach() - before)
        streams.append(updates)
    return streams[0], streams[1]


def test_adam_turns_gradient_rounding_into_lr_sized_update_differences() -> None:
    """The mechanism itself (no verify): Adam's m / (sqrt(v) + eps) on elements whose
    gradient is near eps turns a change of 1e-8 in them into update differences of order
    lr, while the whole gradient changed by ~1e-7 relative."""
    (a1, a2), (b1, b2) = _adam_steps(1e-8)
    assert float((a2 - b2).abs().max()) > 0.1 * 1e-3  # of order lr at step 2
    assert float((a2 - b2).norm() / a2.norm()) > 1e-2  # fails rtol 1e-4 by far


def test_adaptive_updates_pass_on_agreeing_gradients(tmp_path: Path) -> None:
    u_o, u_m = _adam_steps(1e-8)
    g = [torch.tensor([1e-2, -2e-2, 3e-9, 1e-2]), torch.tensor([1e-2, -2e-2, -2e-9, 1e-2])]
    g_m = [x + torch.tensor([0.0, 0.0, 1e-8, 0.0]) for x in g]  # rel. error ~4e-7
    original, migrated = _graded_pair(tmp_path, u_o, u_m, g, g_m, _ADAM)
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    assert numerics.passed, numerics.diffs
    assert 2 in [d.step for d in numerics.rounding]
    assert numerics.gradient_first_diverging_step is None
    note = compare_rounding_note(numerics)
    assert note is not None and "fc.weight" in note and "judged on their gradients" in note


def _adam_evidence(tmp_path: Path, change: torch.Tensor) -> Evidence:
    """Two Adam steps (weight decay 1) from gradients g in the original and g * change in
    the migration (the data split right, 1 + 1 samples of 2)."""
    g = [torch.tensor([1e-2, -2e-2, 3e-3, 1e-2]), torch.tensor([-1e-2, -2e-2, 3e-3, 2e-2])]
    streams = []
    for factor in (torch.ones(4), change):
        p = torch.zeros(4, requires_grad=True)
        opt = torch.optim.Adam([p], lr=1e-3, weight_decay=1.0)
        updates = []
        for x in g:
            before = p.detach().clone()
            p.grad = x * factor
            opt.step()
            updates.append(p.detach() - before)
        streams.append(updates)
    hyper = {**_ADAM, "weight_decay": 1.0}
    original, migrated = _graded_pair(
        tmp_path, streams[0], streams[1], g, [x * change for x in g], hyper
    )
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    ranks = [migrated, _record(1, inputs=[["b"], ["d"]])]
    original.data["windows"] = [{"index": i + 1, "inputs": {"0": x}} for i, x in
                                enumerate([["a", "b"], ["c", "d"]])]  # fmt: skip
    migrated.data["windows"] = [{"index": 1, "inputs": {"0": ["a"]}},
                                {"index": 2, "inputs": {"0": ["c"]}}]  # fmt: skip
    return Evidence(2, numerics, check_sharding(original, ranks, 2), True, "", original, ranks,
                    [], [])  # fmt: skip


def test_adaptive_sum_loss_is_named_from_the_gradients(tmp_path: Path) -> None:
    """A summed loss halves the gradients; Adam's first update hides it (about lr * sign(g)):
    NOT EQUIVALENT, and the gradients' ratio names the summed loss."""
    ev = _adam_evidence(tmp_path, torch.full((4,), 0.5))
    assert not ev.numerics.passed and ev.numerics.rounding == []
    assert ev.numerics.gradient_first_diverging_step == 1
    causes = diagnose(ev)
    assert [c.key for c in causes] == ["sum_loss"]
    assert "every parameter's gradient at step 1 is 0.5x" in causes[0].detail


def test_adaptive_updates_still_fail_when_gradients_differ(tmp_path: Path) -> None:
    """Gradients changed unevenly: never judged as rounding; the first update hides it (the
    signs agree), and the cause says the gradients already differ at step 1."""
    ev = _adam_evidence(tmp_path, torch.tensor([1.0, 1.0, 0.5, 1.0]))
    assert ev.numerics.first_diverging_step == 2 and ev.numerics.rounding == []
    causes = diagnose(ev)
    assert [c.key for c in causes] == ["unexplained"]
    assert "the gradients already differ at step 1" in causes[0].detail


def test_sgd_updates_are_never_judged_on_gradients(tmp_path: Path) -> None:
    u = torch.tensor([1e-3, -2e-3, 5e-4, 1e-3])
    g = [torch.tensor([1.0, 2.0, 3.0, 4.0])]
    original, migrated = _graded_pair(tmp_path, [u], [u * 1.01], g, g, {"lr": 1e-3})
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    assert not numerics.passed and numerics.rounding == []


def test_adaptive_difference_beyond_the_step_bound_fails(tmp_path: Path) -> None:
    """Agreeing gradients excuse at most twice the optimizer's largest step."""
    u = torch.tensor([1e-3, -1e-3, 1e-3, 1e-3])
    g = [torch.tensor([1.0, -1.0, 1.0, 1.0])]
    original, migrated = _graded_pair(tmp_path, [u], [u * 8], g, g, _ADAM)  # 7 lr apart
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    assert not numerics.passed and numerics.rounding == []


def _batchnorm_evidence(tmp_path: Path, first_bad_step: int) -> Evidence:
    """ResNeXt's shape: BatchNorm with batch statistics, chunked as DataParallel does, the
    ranks on DataParallel's chunks (DistributedSampler with a per-rank batch)."""
    u = torch.tensor([1e-3, -2e-3, 5e-4, 1e-3])
    u_o = [u, u, u]
    drift = torch.tensor([1e-4, 1e-4, -1e-4, 0.0])  # not a uniform scale
    u_m = [u + drift if i + 1 >= first_bad_step else u for i in range(3)]
    g = [torch.ones(4)] * 3
    original, migrated = _graded_pair(tmp_path, u_o, u_m, g, g, {"lr": 0.1, "momentum": 0.9})
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    sampler = {"kind": "DistributedSampler", "per_rank_batch": 1, "shuffle": True, "epoch": 0}
    other = _record(1, inputs=[["b"], ["d"], ["f"]], samplers=[sampler])
    batches = [["a", "b"], ["c", "d"], ["e", "f"]]
    original.data["windows"] = [
        {"index": i + 1, "inputs": {"0": x}, "batchnorm_chunked": 12} for i, x in enumerate(batches)
    ]
    migrated.data["windows"] = [
        {"index": i + 1, "inputs": {"0": x[:1]}, "batchnorm": 12} for i, x in enumerate(batches)
    ]
    migrated.data["samplers"] = [sampler]
    ranks = [migrated, other]
    return Evidence(2, numerics, check_sharding(original, ranks, 3), True, "", original, ranks,
                    [], [])  # fmt: skip


def test_cause_batchnorm_rounding_after_an_equal_first_step(tmp_path: Path) -> None:
    causes = diagnose(_batchnorm_evidence(tmp_path, 2))
    assert [c.key for c in causes] == ["batchnorm_rounding"]
    assert "step 1 agreed" in causes[0].detail and "from step 2" in causes[0].detail
    assert "--freeze-batchnorm" in causes[0].fix


def test_rounding_growth_named_after_an_equal_first_step_without_batchnorm(
    tmp_path: Path,
) -> None:
    """pytorch-retinanet's shape: no BatchNorm with batch statistics (frozen), step 1 equal
    (updates and gradients), step 2 not, ranks in sync, data split right: a likely cause,
    never claimed as proven, with --steps 1 and --rtol to check it."""
    ev = _batchnorm_evidence(tmp_path, 2)
    for window in ev.migrated[0].data["windows"]:
        window["batchnorm"] = 0
    causes = diagnose(ev)
    assert [c.key for c in causes] == ["rounding_growth"]
    assert "not proven" in causes[0].title
    assert "step 1 agreed" in causes[0].detail and "from step 2" in causes[0].detail
    assert "--steps 1" in causes[0].fix and "--rtol" in causes[0].fix
    # a first step that differs is not rounding growth
    ev = _batchnorm_evidence(tmp_path / "b", 1)
    for window in ev.migrated[0].data["windows"]:
        window["batchnorm"] = 0
    assert [c.key for c in diagnose(ev)] == ["unexplained"]


def test_batchnorm_rounding_is_not_claimed_when_step_one_differs(tmp_path: Path) -> None:
    causes = diagnose(_batchnorm_evidence(tmp_path / "a", 1))
    assert [c.key for c in causes] == ["unexplained"]
    ev = _batchnorm_evidence(tmp_path / "b", 2)  # nor where the replicas ran every layer
    for window in ev.original.data["windows"]:
        window["replicated"] = 1
    assert [c.key for c in diagnose(ev)] == ["unexplained"]


def test_batchnorm_over_two_values_is_named_from_step_one(tmp_path: Path) -> None:
    """MobileFaceNet's shape (v1-D of stop 40): a 1x1 head's BatchNorm over 2 samples per
    rank; the updates differ from step 1 with the data split right and the ranks in sync.
    Named from the measured shape, with --freeze-batchnorm; not at 3 values per channel."""
    ev = _batchnorm_evidence(tmp_path / "a", 1)
    for window in ev.migrated[0].data["windows"]:
        window["batchnorm_fewest"] = [2, 128, 1, 1]
    causes = diagnose(ev)
    assert [c.key for c in causes] == ["batchnorm_two_values"]
    assert "(2, 128, 1, 1)" in causes[0].detail and "from step 1" in causes[0].detail
    ev = dataclasses.replace(
        ev, migration_warnings=("./core/model.py:17:13: DP008 BatchNorm statistics",)
    )
    assert "BatchNorm layers: ./core/model.py:17, DP008" in diagnose(ev)[0].detail
    assert "--freeze-batchnorm" in causes[0].fix
    ev = _batchnorm_evidence(tmp_path / "b", 1)
    for window in ev.migrated[0].data["windows"]:
        window["batchnorm_fewest"] = [3, 128, 1, 1]
    assert [c.key for c in diagnose(ev)] == ["unexplained"]


def test_batchnorm_probe_keeps_the_fewest_values_per_channel() -> None:
    from types import SimpleNamespace

    from dp2ddp.verify.probes import _note_values
    from dp2ddp.verify.recorder import Window

    recorder = SimpleNamespace(current=Window(1))
    for shape in ((2, 8, 4, 4), (2, 128, 1, 1), (4, 16)):
        _note_values(recorder, torch.zeros(shape))  # type: ignore[arg-type]
    assert recorder.current.batchnorm_fewest == [2, 128, 1, 1]


def test_cause_dropout_offers_the_neutraliser(tmp_path: Path) -> None:
    causes = diagnose(_evidence(tmp_path, 1.3, window={"dropout": 3}))
    assert "dropout" in [c.key for c in causes]
    assert "--no-dropout" in next(c for c in causes if c.key == "dropout").fix


def test_dropout_is_no_cause_where_every_rank_drew_the_originals_masks(tmp_path: Path) -> None:
    """xcmyz/VAE-Tacotron@d57dd0a: "dropout masks may not line up" was named, a guess, where
    the KL term's sum made the difference. Each aligned draw is kept as (mask seed, shape,
    p): where rank r's equal the original's for chunk r, the masks were the same and dropout
    is no cause; where they differ, the first difference is the evidence."""
    draws = {"0": ["11:(2, 8):0.5"], "1": ["12:(2, 8):0.5"]}
    ev = _evidence(
        tmp_path, 1.3, window={"dropout": 1, "dropout_aligned": 1, "dropout_draws": draws}
    )
    for run in ev.migrated:
        window = run.data["windows"][0]
        key = str(run.rank)
        window.update(dropout=1, dropout_aligned=1, dropout_draws={key: list(draws[key])})
    assert "dropout" not in [c.key for c in diagnose(ev)]
    ev.migrated[1].data["windows"][0]["dropout_draws"] = {"1": ["12:(3, 8):0.5"]}
    cause = next(c for c in diagnose(ev) if c.key == "dropout")
    assert cause.title == "dropout masks did not line up"
    assert "at step 1 rank 1's draw 1 was over (3, 8) (p 0.5)" in cause.detail
    assert "the original's for its chunk over (2, 8) (p 0.5)" in cause.detail


def test_ranks_apart_names_the_warning_that_says_how(tmp_path: Path) -> None:
    """raahii/infogan-pytorch@3729f48: the ranks' generators apart, migrate's DP108 at
    `gen.module.infer(z)`; the fix text named DP039 (weights re-initialised after the
    wrap), not the cause. The migration's own warnings that say how ranks go apart are
    named, with their lines; without one, no single cause is asserted."""
    warned = (
        "/p/trainer.py:169:22: DP108 a training step runs the wrapped model through .module: "
        "past DDP: gen.module.infer(...)",
        "/p/train.py:40:1: DP008 BatchNorm statistics are per process: nn.BatchNorm2d",
    )
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ev = _evidence(tmp_path / "a", 1.0, in_sync=False, sync_detail="after step 1, rank 1 differs",
                   migration_warnings=warned)  # fmt: skip
    cause = next(c for c in diagnose(ev) if c.key == "ranks_out_of_sync")
    assert cause.title == "DDP ranks hold different parameters, as dp2ddp migrate warned (DP108)"
    assert "/p/trainer.py:169 DP108" in cause.detail and "DP039" not in cause.fix + cause.detail
    assert "DP008" not in cause.detail
    ev = _evidence(tmp_path / "b", 1.0, in_sync=False, sync_detail="after step 1, rank 1 differs")
    cause = next(c for c in diagnose(ev) if c.key == "ranks_out_of_sync")
    assert cause.title == "DDP ranks hold different parameters"
    assert "named no place" in cause.detail and "DP039" not in cause.fix


def test_ranks_apart_says_when_no_rank_built_a_wrapper(tmp_path: Path) -> None:
    """Stop 53 v4-C (spacegoing/DARNN_Multi_GPU@7e60823): the wrap left under `if
    torch.cuda.device_count() > 1:`, false on CPU, so no rank built a DDP wrapper; verify's
    cause was "as dp2ddp migrate warned (DP007)", a warning about an int counter. A run whose
    ranks recorded no DistributedDataParallel is named as such; with a wrapper the warnings
    are named as before."""
    warned = ("/p/DARNN.py:74:7: DP007 module state mutated in forward() or backward(): "
              "self.count in Encoder.forward()",)  # fmt: skip
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ev = _evidence(tmp_path / "a", 1.0, in_sync=False, sync_detail="after step 1, rank 1 differs",
                   migration_warnings=warned)  # fmt: skip
    for run in ev.migrated:
        run.data["wrappers"] = []
    cause = next(c for c in diagnose(ev) if c.key == "ranks_out_of_sync")
    assert cause.title == "no model wrapped in DistributedDataParallel: each rank trained alone"
    assert "built no DistributedDataParallel on rank 0, 1" in cause.detail
    assert "DP007" not in cause.title + cause.detail
    ev = _evidence(tmp_path / "b", 1.0, in_sync=False, sync_detail="after step 1, rank 1 differs",
                   migration_warnings=warned)  # fmt: skip
    cause = next(c for c in diagnose(ev) if c.key == "ranks_out_of_sync")
    assert cause.title == "DDP ranks hold different parameters, as dp2ddp migrate warned (DP007)"


def test_a_collate_that_only_stacks_is_measured_per_sample() -> None:
    """bubbliiiing/srgan-pytorch@0f511ff's `SRGAN_dataset_collate` (`np.array` of each part)
    was named the cause ("builds each batch as a whole") of a difference it cannot make. A
    collate is tried on a few samples whole and in two halves; only one whose halves differ
    from the whole (a pad to each part's longest, a random size per batch) may be named."""
    import numpy as np

    from dp2ddp.verify import collate_check
    from dp2ddp.verify.data_evidence import collate_cause

    samples = [(np.full((2, 3), i, np.float32), np.full((4,), i, np.float32)) for i in range(6)]

    def stack(batch: list[Any]) -> Any:
        return np.array([a for a, _ in batch]), np.array([b for _, b in batch])

    def boxes(batch: list[Any]) -> Any:  # yolov4-tiny's: images stacked, a list of targets
        return np.array([a for a, _ in batch]), [b[: 1 + int(b[0]) % 3] for _, b in batch]

    def pad(batch: list[Any]) -> Any:  # to the batch's longest sample, with -1
        parts = [torch.tensor(b[: 2 + int(b[0]) // 2]) for _, b in batch]
        longest = max(len(p) for p in parts)
        pad = torch.nn.functional.pad
        return torch.stack([pad(p, (0, longest - len(p)), value=-1.0) for p in parts])

    def draws(batch: list[Any]) -> Any:  # a size drawn per batch
        return torch.randn(1) * torch.stack([torch.tensor(a) for a, _ in batch])

    def seeded(call: Any, key: str) -> Any:
        torch.manual_seed(len(key))
        return call()

    def measured(collate: Any) -> bool | None:
        return collate_check.per_sample(6, samples.__getitem__, collate, seeded)

    assert measured(stack) is True and measured(boxes) is True
    assert measured(pad) is False and measured(draws) is False
    assert collate_check.per_sample(1, samples.__getitem__, stack, seeded) is None
    loaders = [{"collate": "stack", "collate_per_sample": True}]
    original = RankRecord(0, Path("."), "stopped", {"loaders": loaders}, {}, "", "")
    assert collate_cause(original, "step 3", "checked", True) is None
    loaders[0]["collate_per_sample"] = False
    cause = collate_cause(original, "step 3", "checked", True)
    assert cause is not None and "measured: a few samples collated whole" in cause.detail


def test_cause_random_draws_in_the_loop(tmp_path: Path) -> None:
    source = "for x in loader:\n    noise = torch.randn(4)\n"
    causes = diagnose(_evidence(tmp_path, 1.3, window={"rng_consumed": True}, source=source))
    cause = next(c for c in causes if c.key == "random_in_loop")
    assert "line 2 (torch.randn)" in cause.detail


def _loaded_windows(loaded: list[str], fed: list[str], rng: bool | None) -> list[dict[str, Any]]:
    return [{"index": 1, "inputs": {"0": fed}, "loaded": loaded, "dropout": 0, "batchnorm": 0,
             "rng_consumed": rng}]  # fmt: skip


def _cutmix_evidence(
    tmp_path: Path, rng: bool | None, loaded: tuple[list[str], list[str]] = (["a", "b"], ["c", "d"])
) -> Evidence:
    """CutMix (clovaai/CutMix-PyTorch@2d8eb68): the loader is split right (a b c d -> a b |
    c d), then a box of a permuted batch is pasted into every sample but the permutation's
    fixed point: one loaded sample per run reaches the model unchanged (original: a; ranks:
    b and c), the others are new tensors (x, y, ...)."""
    u = torch.tensor([1e-3, -2e-3, 5e-4, 1e-3])
    original, migrated = _pair(tmp_path, [u], [u.flip(0)])  # other samples, other updates
    original.data["windows"] = _loaded_windows(["a", "b", "c", "d"], ["a", "x1", "x2", "x3"], rng)
    migrated.data["windows"] = _loaded_windows(loaded[0], ["y1", "b"], rng)
    other = _record(1, windows=_loaded_windows(loaded[1], ["c", "z1"], rng))
    ranks = [migrated, other]
    numerics = compare_updates(original, migrated, 1e-4, 1e-8)
    return Evidence(
        world=2,
        numerics=numerics,
        sharding=check_sharding(original, ranks, 1),
        in_sync=True,
        sync_detail="",
        original=original,
        migrated=ranks,
        findings_original=[],
        findings_migrated=[],
        migration_warnings=(
            "train.py:43:39: DP006 random tensors drawn inside the training loop: "
            "cutmix() draws np.random.beta at line 24",
        ),
    )


@pytest.mark.parametrize(
    "draw",
    [
        lambda: __import__("numpy").random.rand(1),  # CutMix's `r = np.random.rand(1)`
        lambda: __import__("numpy").random.beta(1.0, 1.0),
        lambda: __import__("numpy").random.randn(),  # leaves a cached Gaussian
        lambda: torch.randperm(4),
        lambda: __import__("random").random(),
    ],
)
def test_rng_digest_sees_a_single_draw(draw: Any) -> None:
    """numpy's Mersenne Twister key changes only every 624 draws: its position must count."""
    before = rng_digest()
    draw()
    assert rng_digest() != before


def test_sharding_counts_the_batch_on_the_loader_when_inputs_are_changed(tmp_path: Path) -> None:
    """One untouched sample per run (1 = 1 = 1) is no undivided batch: the DataLoader batches
    (2+2 of 4) say the data is sharded, and the model was fed changed batches."""
    sharding = _cutmix_evidence(tmp_path, rng=True).sharding
    assert sharding.status == OK and not sharding.failed and not sharding.undivided
    assert [s.per_rank for s in sharding.changed_inputs] == [(1, 1)]
    assert sharding.describe() == (
        "1 steps of DataLoader batches: ranks fed disjoint samples (2+2) forming the "
        "original's batch of 4; the model was fed changed batches (from step 1: the script "
        "changes a batch after loading)"
    )


def test_cause_cutmix_draws_rank_before_the_batch_size(tmp_path: Path) -> None:
    causes = diagnose(_cutmix_evidence(tmp_path, rng=True))
    assert [c.key for c in causes] == ["random_in_loop"]
    assert causes[0].detail.startswith(
        "the DataLoader batches were split right (2+2 of the original's 4), but from step 1 "
        "the model was not fed the loaded samples"
    )
    assert "train.py:43:39 cutmix() draws np.random.beta at line 24" in causes[0].detail


def test_cause_batch_not_divided_is_measured_on_the_loader(tmp_path: Path) -> None:
    """Each rank loading the original's whole batch is still named, draws or not."""
    evidence = _cutmix_evidence(tmp_path, rng=True, loaded=(["a", "b", "c", "d"], ["e"] * 4))
    assert evidence.sharding.undivided and not evidence.sharding.changed_inputs
    assert diagnose(evidence)[0].key == "batch_not_divided"


def test_cause_batch_not_divided_for_a_batch_smaller_than_the_world_says_so() -> None:
    """Stop 50 (s1, WenbinLee/DN4@440857b's batch of one episode): B // WORLD_SIZE is 0, so
    the fix does not tell to divide it; the usual text where the batch divides."""
    from dp2ddp.verify.causes import _undivided_fix

    def shards(original: int) -> Sharding:
        step = StepShards(1, LOADER, original, (original, original), False, 0, 0, original, 0)
        return Sharding(status="data", steps=[step], loader=[step])

    one = _undivided_fix(shards(1), 2)
    assert "B // WORLD_SIZE" not in one and "batch of 1 is smaller than WORLD_SIZE=2" in one
    assert "DP133" in one
    assert _undivided_fix(shards(4), 2).startswith("Use batch_size=B // WORLD_SIZE")


def test_cause_data_differs_for_a_batch_smaller_than_the_world_says_so() -> None:
    """The data-differs fix names B // WORLD_SIZE only where it is at least 1 (stop 50: the
    same fault as the batch-not-divided text, for a batch of one episode)."""
    from dp2ddp.verify.causes import _loader_fix

    one = _loader_fix(1, 2)
    assert "B // WORLD_SIZE" not in one and "batch of 1 is smaller than WORLD_SIZE=2" in one
    assert "DP133" in one
    assert "batch size B // WORLD_SIZE" in _loader_fix(8, 2)


def test_a_batch_split_again_after_the_loader_fails_on_the_model_inputs(tmp_path: Path) -> None:
    """V4 (rosinality/glow-pytorch@97081ff, F1): the DataLoaders give 4+4 of the original's
    8, then a second split after next() feeds each rank's model 2: counted on what reaches
    the model, not on what the loaders gave, it is no "changed batch" but a failure, and the
    cause says where the samples went."""
    u = torch.tensor([1e-3, -2e-3, 5e-4, 1e-3])
    original, migrated = _pair(tmp_path, [u], [u / 2])
    everything = list("abcdefgh")
    original.data["windows"] = _loaded_windows(everything, everything, False)
    migrated.data["windows"] = _loaded_windows(list("abcd"), ["a", "b"], False)
    other = _record(1, windows=_loaded_windows(list("efgh"), ["e", "f"], False))
    sharding = check_sharding(original, [migrated, other], 1)
    assert sharding.failed and not sharding.changed_inputs
    assert [(s.original, s.per_rank) for s in sharding.shrunk] == [(8, (2, 2))]
    assert sharding.describe() == (
        "step 1: the models were fed 2+2 samples, the original's 8; the DataLoaders gave "
        "4+4 of its 8: the batch is cut again between the DataLoader and the model"
    )
    (tmp_path / "c").mkdir()
    evidence = dataclasses.replace(_cutmix_evidence(tmp_path / "c", rng=False), sharding=sharding)
    assert [c.key for c in diagnose(evidence)][0] == "batch_split_again"


def test_cause_inputs_changed_without_draws(tmp_path: Path) -> None:
    causes = diagnose(_cutmix_evidence(tmp_path, rng=False))
    assert causes[0].key == "inputs_changed"
    assert "random_in_loop" not in [c.key for c in causes]


def test_unexplained_mismatch_is_said_so(tmp_path: Path) -> None:
    evidence = _evidence(tmp_path, 1.0)
    u = evidence.numerics.diffs[0]
    evidence.numerics.diffs[0] = type(u)(u.step, u.key, u.name, u.shape, 0.3, 1e-3, False)
    evidence.numerics.first_diverging_step = 1
    assert [c.key for c in diagnose(evidence)] == ["unexplained"]


# -- static scan -----------------------------------------------------------------------------
def test_scan_finds_the_usual_suspects() -> None:
    source = (
        "import torch, torch.nn as nn\n"
        "net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.Dropout(0.1))\n"
        "crit = nn.CrossEntropyLoss(reduction='sum')\n"
        "opt = torch.optim.SGD(net.parameters(), lr=0.1 * WORLD_SIZE)\n"
        "noise = torch.randn(3)  # outside the loop: fine\n"
        "for epoch in range(3):\n"
        "    loader.sampler.set_epoch(epoch)\n"
        "    z = torch.randn(8, 2)\n"
        "    w = torch.empty(2).normal_()\n"
    )
    kinds = {(f.kind, f.line) for f in scan.scan(source)}
    assert {
        (scan.BATCHNORM, 2), (scan.DROPOUT, 2), (scan.SUM_LOSS, 3), (scan.WORLD_SIZE_LR, 4),
        (scan.SET_EPOCH, 7), (scan.RANDOM_IN_LOOP, 8), (scan.RANDOM_IN_LOOP, 9),
    } <= kinds  # fmt: skip
    assert (scan.RANDOM_IN_LOOP, 5) not in kinds
    assert scan.scan("def (:\n") == []


def test_scan_follows_helpers_that_draw() -> None:
    source = (
        "import numpy as np, torch\n"
        "def bbox(w):\n"
        "    return np.random.randint(w)\n"
        "def cutmix(x):\n"
        "    return bbox(x.size(1))\n"
        "def seed(s):\n"
        "    np.random.seed(s)\n"
        "def train():\n"
        "    for x in loader:\n"
        "        torch.randn(2)\n"
        "cutmix(torch.ones(2, 2))  # outside the loop: fine\n"
        "for step in range(3):\n"
        "    seed(step)\n"
        "    cutmix(torch.ones(2, 2))\n"
        "    train()\n"
    )
    found = [(f.line, f.text) for f in scan.scan(source) if f.kind == scan.RANDOM_IN_LOOP]
    assert found == [(10, "torch.randn"), (14, "cutmix() draws np.random.randint")]


# -- rendering -------------------------------------------------------------------------------
def _report(**changes: Any) -> VerifyReport:
    fields: dict[str, Any] = dict(
        verdict="not equivalent",
        exit_code=1,
        original="train.py",
        migrated="train_ddp.py",
        world_size=2,
        backend="gloo",
        steps_requested=3,
        steps_compared=3,
        rtol=1e-4,
        atol=1e-8,
        initial_weights="identical",
        ranks_in_sync="yes",
        sharding_status="ok",
        sharding="3 steps: ranks fed disjoint samples",
        first_diverging_step=1,
        worst_parameters=(ParamRow("fc.weight", (4, 2), 1, 0.5, 1e-3, False),
                          ParamRow("fc.bias", (4,), 1, float("inf"), 1e-3, False)),
        causes=(Cause("sum_loss", "loss summed, not averaged", "ratio 0.5", "multiply"),),
        seconds={"original": 1.0, "migrated": 2.0},
    )  # fmt: skip
    fields.update(changes)
    return VerifyReport(**fields)


def test_text_markdown_and_json_carry_the_verdict(tmp_path: Path) -> None:
    report = _report()
    text = render.to_text(report)
    assert text.startswith("dp2ddp verify: NOT EQUIVALENT")
    for needle in ("fc.weight", "5.00e-01", "inf", "loss summed, not averaged", "fix: multiply",
                   "step 1", "gloo", "3 of 3"):  # fmt: skip
        assert needle in text
    data = json.loads(render.to_json(report))
    assert data["equivalent"] is False and data["exit_code"] == 1
    assert data["worst_parameters"][1]["rel_error"] == "inf"
    assert data["causes"][0]["key"] == "sum_loss"

    pr = tmp_path / "pr.md"
    pr.write_text("## dp2ddp migrate\n\nchanged 1 file\n")
    render.append_markdown(report, pr)
    render.append_markdown(_report(verdict="equivalent", exit_code=0, causes=()), pr)
    body = pr.read_text()
    assert body.startswith("## dp2ddp migrate\n\nchanged 1 file\n\n## dp2ddp verify\n")
    assert body.count("## dp2ddp verify") == 1 and "✅ equivalent" in body


def test_failure_rendering_shows_the_excerpt() -> None:
    failure = Failure("migrated", 1, "crashed", "RuntimeError: boom", "Traceback\n  boom")
    report = _report(verdict="run failed", exit_code=2, failures=(failure,), causes=(),
                     worst_parameters=())  # fmt: skip
    text = render.to_text(report)
    assert "migrated run, rank 1 crashed: RuntimeError: boom" in text
    assert "    | Traceback" in text
    assert "```text" in render.to_markdown(report)


# -- command line ----------------------------------------------------------------------------
def test_cli_passes_script_args_after_double_dash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[VerifyConfig] = []

    def fake_verify(config: VerifyConfig) -> VerifyReport:
        seen.append(config)
        return _report(verdict="equivalent", exit_code=0, causes=())

    monkeypatch.setattr("dp2ddp.verify.session.verify", fake_verify)
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("")
    b.write_text("")
    json_path = tmp_path / "v.json"
    result = CliRunner().invoke(
        main,
        ["verify", str(a), str(b), "--nproc", "3", "--steps", "2", "--json", str(json_path),
         "--per-process-batch", "--no-dropout", "--", "--epochs", "1", "extra.py"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    config = seen[0]
    assert config.migrated == b and config.nproc == 3 and config.steps == 2
    assert config.script_args == ("--epochs", "1", "extra.py")
    assert config.migrate_options.per_process_batch and config.no_dropout
    assert json.loads(json_path.read_text())["equivalent"] is True
    assert "[-- SCRIPT_ARGS...]" in CliRunner().invoke(main, ["verify", "--help"]).output


def test_cli_exit_codes_follow_the_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dp2ddp.verify.session import VerifyError

    script = tmp_path / "a.py"
    script.write_text("")
    monkeypatch.setattr("dp2ddp.verify.session.verify", lambda config: _report())
    assert CliRunner().invoke(main, ["verify", str(script)]).exit_code == 1

    def refuse(config: VerifyConfig) -> VerifyReport:
        raise VerifyError("nothing to migrate")

    monkeypatch.setattr("dp2ddp.verify.session.verify", refuse)
    result = CliRunner().invoke(main, ["verify", str(script)])
    assert result.exit_code == 2 and "nothing to migrate" in result.output
    assert "Traceback" not in result.output


def test_plan_refuses_nccl_without_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    from dp2ddp.verify.session import VerifyError, plan

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(VerifyError, match="needs CUDA GPUs"):
        plan(VerifyConfig(Path("x.py"), backend="nccl"))
    assert plan(VerifyConfig(Path("x.py"))).nproc == 2
    assert plan(VerifyConfig(Path("x.py"))).backend == "gloo"


def test_in_memory_migration_needs_a_dataparallel_script(tmp_path: Path) -> None:
    from dp2ddp.verify.session import VerifyError, prepare_scripts

    plain = tmp_path / "plain.py"
    plain.write_text("print('no DataParallel here')\n")
    with pytest.raises(VerifyError, match="nothing to migrate"):
        prepare_scripts(VerifyConfig(plain), tmp_path)
    # A script migrate declines (DP003: its own DDP path; lemniscate.pytorch): said so, not
    # "no DataParallel found".
    own = tmp_path / "own_ddp.py"
    own.write_text(
        "import torch\n"
        "import torch.nn as nn\n"
        "model = nn.Linear(2, 2)\n"
        "if torch.distributed.is_initialized():\n"
        "    model = nn.parallel.DistributedDataParallel(model)\n"
        "else:\n"
        "    model = nn.DataParallel(model)\n"
    )
    with pytest.raises(VerifyError) as declined:
        prepare_scripts(VerifyConfig(own), tmp_path / "declined")
    message = str(declined.value)
    assert "migrate declined it" in message and "DP003" in message, message
    assert "own_ddp.py:" in message and "no DataParallel found" not in message, message
    # DataParallel of the program's own (a subclass with a gather of its own; stop 43 v3-B:
    # one that only forwards attributes is migrated since stop 44): migrate said DP002, so
    # not "no DataParallel found" either.
    subclass = tmp_path / "subclass.py"
    subclass.write_text(
        "import torch.nn as nn\n"
        "class DataParallel(nn.DataParallel):\n"
        "    def gather(self, outputs, output_device):\n"
        "        return super().gather(outputs, output_device)\n"
        "model = DataParallel(nn.Linear(2, 2))\n"
    )
    with pytest.raises(VerifyError) as machinery:
        prepare_scripts(VerifyConfig(subclass), tmp_path / "own")
    message = str(machinery.value)
    assert "not migrated" in message and "DP002" in message, message
    assert "subclass.py:" in message and "no DataParallel found" not in message, message
    broken = tmp_path / "broken.py"
    broken.write_text("def (:\n")
    with pytest.raises(VerifyError, match="broken.py:1"):
        prepare_scripts(VerifyConfig(broken), tmp_path)


# -- process trees ---------------------------------------------------------------------------
def test_process_tree_kill_reaches_children_in_other_sessions() -> None:
    # A parent that starts a child in its own session, like torchrun starts its workers.
    code = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],"
        " start_new_session=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    tree = ProcessTree(parent)
    deadline = time.monotonic() + 20
    while len(tree.known) < 1 and time.monotonic() < deadline:
        tree.observe()
        time.sleep(0.05)
    assert tree.known, "the child never appeared"
    child = next(iter(tree.known))
    assert os.getpgid(child) != os.getpgid(parent.pid)  # not reachable through the group
    tree.kill(grace=2.0)
    assert parent.poll() is not None
    assert tree.alive() == []
    assert _start_time(child) is None  # gone (or a zombie waiting for init)


def test_sharding_looks_only_at_loaded_samples_of_models_fed_with_data() -> None:
    """A GAN: the generator eats noise, the discriminator real samples and fakes."""

    def run(rank: int, noise: list[str], real: list[str], fake: list[str]) -> RankRecord:
        record = _record(rank, inputs=[[]])
        record.data["windows"][0].update(inputs={"0": noise, "1": real + fake}, loaded=real)
        return record

    original = run(0, ["n1", "n2", "n3", "n4"], ["a", "b", "c", "d"], ["f1", "f2", "f3", "f4"])
    ranks = [run(0, ["n1", "n2"], ["a", "b"], ["g1", "g2"]),
             run(1, ["n1", "n2"], ["c", "d"], ["g1", "g2"])]  # fmt: skip
    result = check_sharding(original, ranks, 1)
    assert result.status == OK and result.source == "model inputs"
    assert [s.model for s in result.steps] == ["1"]

    # the model is fed a transformed batch: compare the DataLoader's batches instead
    for record in (original, *ranks):
        record.data["windows"][0]["inputs"] = {"0": ["t1", "t2"]}
    result = check_sharding(original, ranks, 1)
    assert result.status == OK and result.source == "DataLoader batches"


def test_cause_batch_not_divisible_by_the_world_size(tmp_path: Path) -> None:
    evidence = _evidence(tmp_path, 1.0)
    original = evidence.original
    original.data["windows"][0]["inputs"] = {"0": ["a", "b", "c"]}
    sharding = check_sharding(original, evidence.migrated, 1)
    causes = diagnose(dataclasses.replace(evidence, sharding=sharding))
    assert [c.key for c in causes] == ["batch_not_divisible"]
    assert "global batch is 2" in causes[0].detail


_SAMPLER_PROBE = """
import sys
from pathlib import Path
import torch
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler
from dp2ddp.verify import alignment, protocol
from dp2ddp.verify.recorder import Recorder

options = protocol.RunnerOptions(out=sys.argv[1], steps=1, seed=7, file_attr="x.py")
alignment.install(Recorder(options, 0, 1, Path(sys.argv[1])), seed=7, scale_batch=1)
data = list(range(12))
original = DataLoader(data, batch_size=4, shuffle=True)
first, second = [b.tolist() for b in original], [b.tolist() for b in original]
assert first != second  # a new order every epoch
ranks = []
for rank in range(2):
    sampler = DistributedSampler(data, num_replicas=2, rank=rank, shuffle=True)
    loader = DataLoader(data, batch_size=2, sampler=sampler)
    epochs = []
    for epoch in (1, 2, 2):  # numbered from 1; the last epoch forgot set_epoch
        sampler.set_epoch(epoch)
        epochs.append([b.tolist() for b in loader])
    ranks.append(epochs)
for e, batches in enumerate((first, second)):
    for s, batch in enumerate(batches):  # rank r holds the r-th contiguous half of batch s
        assert ranks[0][e][s] + ranks[1][e][s] == batch, (e, s)
assert ranks[0][2] == ranks[0][1]  # without set_epoch the order repeats
print("ok")
"""


def test_samplers_draw_the_original_order_per_epoch(tmp_path: Path) -> None:
    """Runs in a child: the alignment patches torch's samplers for the whole process."""
    result = subprocess.run(
        [sys.executable, "-c", _SAMPLER_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.strip() == "ok", result.stderr


def test_recorded_tensors_read_back_without_torch_exactly(tmp_path: Path) -> None:
    """The harness reads the runner's float64 file with the standard library: same values,
    shapes and dtype eps as the tensors, and sums that agree with torch's in float64."""
    init = {"w": torch.randn(3, 5), "h": torch.randn(4, dtype=torch.bfloat16)}
    updates = [{"w": torch.randn(3, 5), "h": torch.randn(4, dtype=torch.bfloat16)}]
    save_tensors(tmp_path / protocol.TENSORS, init, updates, [{"w": 1.0, "h": 2.0}])
    tensors = RankRecord(0, tmp_path, protocol.STOPPED, {}, {}, "", "").tensors()
    assert tensors.init["w"].shape == (3, 5)
    assert list(tensors.init["w"].values) == init["w"].double().flatten().tolist()
    assert list(tensors.updates[0]["h"].values) == updates[0]["h"].double().tolist()
    assert tensors.eps == {"w": torch.finfo(torch.float32).eps, "h": 2.0**-7}
    assert tensors.param_rms == [{"w": 1.0, "h": 2.0}]


@pytest.mark.parametrize("numpy_from", [0, 1 << 40], ids=["numpy", "stdlib"])
def test_vector_sums_match_torch_across_slices(
    monkeypatch: pytest.MonkeyPatch, numpy_from: int
) -> None:
    monkeypatch.setattr(arrays, "_CHUNK", 7)  # several slices, the last one short
    monkeypatch.setattr(arrays, "_NUMPY_FROM", numpy_from)
    a, b = torch.randn(50, dtype=torch.float64), torch.randn(50, dtype=torch.float64)
    va, vb = array("d", a.tolist()), array("d", b.tolist())
    assert arrays.norm(va) == pytest.approx(float(a.norm()), rel=1e-12)
    assert arrays.distance(va, vb) == pytest.approx(float((b - a).norm()), rel=1e-12)
    assert arrays.max_abs_diff(va, vb) == float((b - a).abs().max())
    assert arrays.dot(va, vb) == pytest.approx(float(a @ b), rel=1e-12)
    assert list(arrays.scaled(va, 2.0)) == (a * 2).tolist()
    vb[5] = math.inf
    assert arrays.norm(vb) == math.inf and arrays.max_abs_diff(va, vb) == math.inf
    assert arrays.distance(va, vb) == math.inf
    vb[3], vb[5] = math.nan, 0.0
    assert math.isnan(arrays.max_abs_diff(va, vb)) and math.isnan(arrays.distance(va, vb))
    assert arrays.norm(array("d")) == 0.0 and arrays.max_abs_diff(array("d"), array("d")) == 0.0


def test_unfinished_reduction_names_unused_parameters() -> None:
    """DDP's "Expected to have finished reduction" (a parameter without a gradient, where
    DataParallel did not mind) is named as its cause, with the parameters DDP listed."""
    from dp2ddp.verify.failures import unused_parameters_cause

    text = (
        "RuntimeError: Expected to have finished reduction in the prior iteration before "
        "starting a new one. This error indicates that your module has parameters that were "
        "not used in producing loss. ...\nParameter indices which did not receive grad for "
        "rank 0: 2 3\n In addition, you can set the environment variable"
    )
    cause = unused_parameters_cause(text)
    assert cause is not None and cause.key == "unused_parameters"
    assert "rank 0: parameter indices 2 3" in cause.detail
    assert "find_unused_parameters=True" in cause.fix and "DP041" in cause.fix
    assert unused_parameters_cause("RuntimeError: size mismatch") is None


def test_sample_digests_of_a_transposed_batch_of_one() -> None:
    """A batch of one sample, transposed (verify digests dim 1 too): one value per row, a
    stride that view(uint8) refused (ShichenLiu/CondenseNet's measure_model forward)."""
    from dp2ddp.verify.digest import sample_digests

    batch = torch.randn(1, 20)
    digests = sample_digests(batch.transpose(0, 1))
    assert len(digests) == 20
    assert digests == sample_digests(batch.transpose(0, 1).contiguous().clone())


def test_digests_leave_the_programs_buffer_resizable() -> None:
    """V1 (meijieru/crnn.pytorch, stop 34): a preallocated input buffer the program grows
    with `resize_` after verify hashed it; `Tensor.numpy()` on a view of it had made its
    storage unresizable ("Trying to resize storage that is not resizable")."""
    from dp2ddp.verify.digest import float64_bytes, sample_digests, tensor_digest

    buffer = torch.zeros(4, 3, 8, dtype=torch.float64)
    sample_digests(buffer), tensor_digest(buffer), float64_bytes(buffer)
    buffer.resize_(4, 3, 12).zero_()
    assert buffer.shape == (4, 3, 12)


def test_mean_losses_are_the_ones_migrate_warned_when_verify_migrated() -> None:
    """DP043's losses for verify's cause: every CrossEntropyLoss/NLLLoss/cross_entropy/
    nll_loss with ignore_index= or weight= and a mean, at the argument's line; with the
    warnings of verify's own migration, only those DP043 was given for (a criterion only
    evaluated, line 36 and 41 of the fixture, is not a cause)."""
    source = Path(__file__).parent / "fixtures" / "hazards_mean_loss_data_count" / "input.py"
    lines = [int(site.split(" ")[0].rsplit(":", 1)[1]) for site in scan.mean_losses(source)]
    assert lines == [16, 20, 28, 36, 41]
    warned = tuple(  # as verify's migration prints them: `path:line:col: CODE message`
        f"{source}:{line.replace(' ', ': ', 1)}"
        for line in (Path(source.parent / "warnings.txt").read_text().split("\n"))
    )
    kept = scan.mean_losses(source, warned)
    assert [int(site.split(" ")[0].rsplit(":", 1)[1]) for site in kept] == [16, 20, 28]
    assert kept[1].endswith("input.py:20 nn.CrossEntropyLoss(ignore_index=255, reduction='mean')")


def test_mean_losses_under_other_names_are_causes_too() -> None:
    """The aliases DP043 knows (nn.NLLLoss2d, fyu/drn@d75db2e: "no known cause matched"; the
    fused linear cross entropy) are verify's causes too: the lines DP043 warned in the
    aliases fixture, and none of the losses without ignore_index or weight."""
    source = Path(__file__).parent / "fixtures" / "hazards_mean_loss_aliases" / "input.py"
    lines = [int(site.split(" ")[0].rsplit(":", 1)[1]) for site in scan.mean_losses(source)]
    warned = [
        int(line.split(":")[0])
        for line in (source.parent / "warnings.txt").read_text().splitlines()
    ]
    assert lines == warned == [13, 14, 16, 21, 24, 34]


# -- DataParallel's replicas, in-process (issue 16: ResNeXt, pytorch_stacked_hourglass) ------
@pytest.fixture
def replica_recorder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """The original's recorder on CPU, as DataParallel on 2 devices, its probes installed
    (F.batch_norm and the dropouts restored after the test)."""
    functional = torch.nn.functional
    for name in ("batch_norm", "scaled_dot_product_attention", *probes._DROPOUTS):
        if hasattr(functional, name):
            monkeypatch.setattr(functional, name, getattr(functional, name))
    options = protocol.RunnerOptions(
        out=str(tmp_path), steps=1, seed=0, file_attr="x.py", batchnorm_chunks=2,
        dropout_chunks=2,
    )  # fmt: skip
    return Recorder(options, 0, 1, tmp_path)


class _ConvBN(torch.nn.Module):
    def __init__(self, loss_inside: bool = False) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1, groups=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8, 2)
        self.loss_inside = loss_inside

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.fc(torch.relu(self.bn(self.conv(x))).mean((2, 3)))
        return out.pow(2).mean() if self.loss_inside else out


def _grad(model: torch.nn.Module, name: str) -> torch.Tensor:
    grad = dict(model.named_parameters())[name].grad
    assert grad is not None
    return grad


def _buffer(model: torch.nn.Module, name: str) -> torch.Tensor:
    return dict(model.named_buffers())[name]


def test_replicas_run_each_chunk_through_the_whole_model(replica_recorder: Recorder) -> None:
    """Each layer over its chunk, as each DDP rank runs it: the gradients are bitwise the
    ranks' averaged gradients (float rounding included), the running statistics replica
    0's, num_batches_tracked counted once."""
    torch.manual_seed(0)
    model = _ConvBN()
    ranks = [copy.deepcopy(model), copy.deepcopy(model)]
    x = torch.randn(8, 3, 6, 6)
    for rank, part in zip(ranks, x.chunk(2), strict=True):  # each rank: its chunk, native
        rank(part).pow(2).mean().backward()
    probes.install(replica_recorder, False, False, batchnorm_chunks=2, dropout_chunks=2)
    done, out = chunked_forward(replica_recorder, torch.nn.Module.__call__, model, (x,), {})
    assert done and out.shape == (8, 2)
    out.pow(2).mean().backward()
    for name, _ in model.named_parameters():
        averaged = (_grad(ranks[0], name) + _grad(ranks[1], name)) / 2
        assert torch.equal(_grad(model, name), averaged), name
    assert torch.equal(_buffer(model, "bn.running_mean"), _buffer(ranks[0], "bn.running_mean"))
    assert int(_buffer(model, "bn.num_batches_tracked")) == 1
    assert replica_recorder.current.replicated == 1
    assert replica_recorder.current.batchnorm_chunked == 1  # replica 0's count, as one rank


def test_replicas_give_a_loss_computed_inside_forward_as_their_mean(
    replica_recorder: Recorder,
) -> None:
    """DataParallel gathers the replicas' scalar losses into a vector (the script's
    `.mean()` reduces it); the script run on one device expects one value: the replicas'
    mean, whose gradients are the ranks' averaged ones (stop 73: before, the chunked forward
    was undone and the whole batch ran, TengdaHan/MemDPC@d7dbbf0's in-batch loss with it)."""
    torch.manual_seed(0)
    model = _ConvBN(loss_inside=True)
    ranks = [copy.deepcopy(model), copy.deepcopy(model)]
    x = torch.randn(8, 3, 6, 6)
    for rank, part in zip(ranks, x.chunk(2), strict=True):
        rank(part).backward()
    probes.install(replica_recorder, False, False, batchnorm_chunks=2, dropout_chunks=2)
    done, out = chunked_forward(replica_recorder, torch.nn.Module.__call__, model, (x,), {})
    assert done and out.shape == ()
    out.backward()
    for name, _ in model.named_parameters():
        averaged = (_grad(ranks[0], name) + _grad(ranks[1], name)) / 2
        assert torch.allclose(_grad(model, name), averaged, rtol=1e-6, atol=1e-9), name


def test_replicas_undone_for_a_count_computed_inside_forward(replica_recorder: Recorder) -> None:
    """An integer per replica (no mean of it is the script's): the chunked forward is undone
    (buffers, RNG restored)."""

    class Counts(_ConvBN):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return (super().forward(x).argmax(1) == 0).sum()

    torch.manual_seed(0)
    model = Counts()
    probes.install(replica_recorder, False, False, batchnorm_chunks=2, dropout_chunks=2)
    x = torch.randn(8, 3, 6, 6)
    rng = torch.get_rng_state()
    done, _ = chunked_forward(replica_recorder, torch.nn.Module.__call__, model, (x,), {})
    assert not done
    assert int(_buffer(model, "bn.num_batches_tracked")) == 0
    assert torch.equal(_buffer(model, "bn.running_mean"), torch.zeros(8))
    assert torch.equal(torch.get_rng_state(), rng)
    assert replica_recorder.current.replicated == 0
    assert replica_recorder.current.batchnorm_chunked == 0


def test_replicas_undone_for_a_forward_that_needs_the_whole_batch(
    replica_recorder: Recorder,
) -> None:
    class WholeBatch(_ConvBN):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return super().forward(x).view(8, 2)  # the batch size written into the model

    model = WholeBatch()
    probes.install(replica_recorder, False, False, batchnorm_chunks=2, dropout_chunks=2)
    x = torch.randn(8, 3, 6, 6)
    done, _ = chunked_forward(replica_recorder, torch.nn.Module.__call__, model, (x,), {})
    assert not done and replica_recorder.replica is None
    assert int(_buffer(model, "bn.num_batches_tracked")) == 0
    assert torch.equal(_buffer(model, "bn.running_mean"), torch.zeros(8))


class _CheckpointedConvBN(_ConvBN):
    """A BatchNorm inside an activation-checkpointed segment, recomputed during backward
    (gpleiss/efficient_densenet_pytorch's `efficient=True` layers)."""

    def __init__(self, reentrant: bool) -> None:
        super().__init__()
        self.reentrant = reentrant

    def segment(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.bn(self.conv(x)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.requires_grad_()  # the reentrant variant needs an input that wants a gradient
        features = torch.utils.checkpoint.checkpoint(self.segment, x, use_reentrant=self.reentrant)
        out: torch.Tensor = self.fc(features.mean((2, 3)))
        return out


@pytest.mark.parametrize("reentrant", [True, False])
def test_replicas_recompute_a_checkpointed_segment_as_the_same_replica(
    replica_recorder: Recorder, monkeypatch: pytest.MonkeyPatch, reentrant: bool
) -> None:
    """backward recomputes replica r's checkpointed segment on replica r's chunk: its
    BatchNorm normalises that chunk whole, as on rank r (it was split in two again: other
    activations, other gradients, and verify said NOT EQUIVALENT with no cause)."""
    monkeypatch.setattr(torch.utils.checkpoint, "checkpoint", torch.utils.checkpoint.checkpoint)
    torch.manual_seed(0)
    model = _CheckpointedConvBN(reentrant)
    ranks = [copy.deepcopy(model), copy.deepcopy(model)]
    x = torch.randn(8, 3, 6, 6)
    for rank, part in zip(ranks, x.chunk(2), strict=True):
        rank(part.clone()).pow(2).mean().backward()
    probes.install(replica_recorder, False, False, batchnorm_chunks=2, dropout_chunks=2)
    replicas.install(replica_recorder)
    done, out = chunked_forward(replica_recorder, torch.nn.Module.__call__, model, (x,), {})
    assert done
    out.pow(2).mean().backward()
    for name, _ in model.named_parameters():
        averaged = (_grad(ranks[0], name) + _grad(ranks[1], name)) / 2
        assert torch.equal(_grad(model, name), averaged), name
    assert replica_recorder.replica is None


_SUBSET_PROBE = """
import random
import sys
from pathlib import Path
import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler, Subset
from dp2ddp.verify import alignment, protocol
from dp2ddp.verify.recorder import Recorder

options = protocol.RunnerOptions(out=sys.argv[1], steps=1, seed=7, file_attr="x.py")
alignment.install(Recorder(options, 0, 1, Path(sys.argv[1])), seed=7, scale_batch=1)


class Augmented(Dataset):
    def __len__(self):
        return 24

    def __getitem__(self, i):  # a random flip and shift, as RandomHorizontalFlip/RandomCrop
        x = torch.arange(4.0) + 10 * int(i)
        if torch.rand(()) < 0.5:
            x = x.flip(0)
        return x + random.randint(0, 3)


class Batched(Augmented):
    reads = 0

    def __getitems__(self, indices):  # a batched read of its own: left native
        Batched.reads += 1
        return [self[i] for i in indices]


def batches(loader):
    return [batch.tolist() for batch in loader]


indices = torch.randperm(24)  # a train/valid split, as gpleiss/efficient_densenet's demo.py
for data in (Subset(Augmented(), indices[:16]), Subset(Subset(Augmented(), indices), range(16))):
    torch.manual_seed(1)
    original = batches(DataLoader(data, batch_size=4, shuffle=True))
    for rank_seed in (2, 3):  # whatever state each process's generator is in
        ranks = []
        for rank in range(2):
            torch.manual_seed(rank_seed + rank)
            sampler = DistributedSampler(data, num_replicas=2, rank=rank, shuffle=True)
            ranks.append(batches(DataLoader(data, batch_size=2, sampler=sampler)))
        for s, batch in enumerate(original):  # the same augmented samples in both runs
            assert ranks[0][s] + ranks[1][s] == batch, (s, ranks[0][s], ranks[1][s], batch)
batched = Subset(Batched(), indices[:16])
batches(DataLoader(batched, batch_size=4))
assert Batched.reads == 4, Batched.reads
print("ok")
"""


def test_a_subsets_samples_are_augmented_alike_in_every_process(tmp_path: Path) -> None:
    """Runs in a child (the alignment patches torch for the whole process). torch's Subset
    loads a batch through its `__getitems__`, which the per-sample seeding once left native:
    augmentation then drew from each process's generator, and verify saw other samples in
    the ranks' batches (efficient_densenet's randperm split). A dataset's own batched read
    stays native."""
    result = subprocess.run(
        [sys.executable, "-c", _SUBSET_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.strip() == "ok", result.stderr


# -- a dataset's own generators (issue 28: verify names the true cause) ----------------------
_OWN_RNG_PROBE = """
import random
import sys
from pathlib import Path
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler
from dp2ddp.verify import alignment, own_rngs, protocol
from dp2ddp.verify.recorder import Recorder

options = protocol.RunnerOptions(out=sys.argv[1], steps=1, seed=7, file_attr="x.py")
recorder = Recorder(options, 0, 1, Path(sys.argv[1]))
alignment.install(recorder, seed=7, scale_batch=1)
SHARED = np.random.default_rng(3)  # a module-level generator the read names


class Jitter:  # a transform object holding a generator of its own
    def __init__(self):
        self.generator = torch.Generator().manual_seed(5)

    def __call__(self, x):
        return x + torch.rand(4, generator=self.generator)


class Masked(Dataset):
    def __init__(self):
        self.rng = random.Random(0)
        self.state = np.random.RandomState(1)
        self.transform = Jitter()

    def __len__(self):
        return 16

    def __getitem__(self, i):
        x = torch.arange(4.0) + 10 * int(i)
        x[self.rng.randrange(4)] = -self.rng.random()
        x = x * float(self.state.uniform(1, 2)) + float(SHARED.uniform())
        return self.transform(x)


class Unseeded(Masked):
    def __init__(self):
        super().__init__()
        self.rng = random.SystemRandom()


def batches(loader):
    return [batch.tolist() for batch in loader]


data = Masked()
found = {own.name: own.kind for own in own_rngs.find(data)}
assert found == {
    "Masked.rng": "random.Random",
    "Masked.state": "numpy.random.RandomState",
    "Masked.transform.generator": "torch.Generator",
    "SHARED": "numpy.random.Generator",
}, found
before = data.rng.getstate()
torch.manual_seed(1)
original = batches(DataLoader(data, batch_size=4, shuffle=True))
assert data.rng.getstate() == before  # put back after each read: the script's own sequence
for rank_seed in (2, 3):
    ranks = []
    for rank in range(2):
        torch.manual_seed(rank_seed + rank)
        sampler = DistributedSampler(data, num_replicas=2, rank=rank, shuffle=True)
        ranks.append(batches(DataLoader(data, batch_size=2, sampler=sampler)))
    for s, batch in enumerate(original):  # each sample drew alike in both runs
        assert ranks[0][s] + ranks[1][s] == batch, (s, ranks[0][s], ranks[1][s], batch)
DataLoader(Unseeded(), batch_size=4)
first, last = recorder.loaders[0], recorder.loaders[-1]
assert first["reproducible"] is True and first["dataset_class"] == "Masked", first
rng = next(own for own in first["own_rngs"] if own["name"] == "Masked.rng")
print(rng["created"], rng["drawn"])
assert last["reproducible"] is False and last["dataset"] is None, last  # no digest said equal
unseeded = [own for own in last["own_rngs"] if own["name"] == "Unseeded.rng"]
assert [own["seedable"] for own in unseeded] == [False], unseeded
assert unseeded[0]["drawn"] == rng["drawn"], unseeded  # inherited: the line of its base
print("ok")
"""


def test_a_datasets_own_generators_are_seeded_per_sample(tmp_path: Path) -> None:
    """Runs in a child (the alignment patches torch for the whole process). A dataset
    drawing its masks from its own `random.Random(seed)` drew them in reading order: the
    original read the whole batch, each rank its half, and verify saw "samples missing"
    and blamed the DataLoader. Its generators (attributes, a transform's, a module-level
    one the read names) are now seeded per sample and put back, and recorded with their
    lines; one that cannot be seeded is recorded as such."""
    probe = tmp_path / "probe.py"
    probe.write_text(_OWN_RNG_PROBE)
    result = subprocess.run(
        [sys.executable, str(probe), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    lines = _OWN_RNG_PROBE.splitlines()
    created = lines.index("        self.rng = random.Random(0)") + 1
    drawn = lines.index("        x[self.rng.randrange(4)] = -self.rng.random()") + 1
    assert result.stdout.split("\n")[:2] == [f"probe.py:{created} probe.py:{drawn}", "ok"], (
        result.stderr
    )


_INDEX_BLIND_PROBE = """
import sys
from pathlib import Path
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, DistributedSampler
from dp2ddp.verify import alignment, protocol
from dp2ddp.verify.recorder import Recorder

options = protocol.RunnerOptions(out=sys.argv[1], steps=1, seed=7, file_attr="x.py")
recorder = Recorder(options, 0, 1, Path(sys.argv[1]))
alignment.install(recorder, seed=7, scale_batch=1)


class Episodes(Dataset):  # its index unread: each read draws an episode
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.from_numpy(np.random.rand(3)).float(), 1


class Labelled(Dataset):  # a draw, but the label is the index's
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.from_numpy(np.random.rand(3)).float(), i


def rank_batches(data):
    ranks = []
    for rank in range(2):
        np.random.seed(0)  # the program seeds every rank alike
        sampler = DistributedSampler(data, num_replicas=2, rank=rank, shuffle=False)
        ranks.append([b[0].tolist() for b in DataLoader(data, batch_size=2, sampler=sampler)])
    return ranks


episodes, labelled = rank_batches(Episodes()), rank_batches(Labelled())
blind = {entry["dataset_class"]: entry["index_blind"] for entry in recorder.loaders}
assert blind == {"Episodes": True, "Labelled": False}, blind
assert episodes[0] == episodes[1], episodes  # native draws: alike on ranks seeded alike
assert labelled[0] != labelled[1], labelled  # seeded per index, as before
print("ok")
"""


def test_a_dataset_drawing_whatever_its_index_keeps_its_native_draws(tmp_path: Path) -> None:
    """Runs in a child (the alignment patches torch for the whole process). A dataset whose
    `__getitem__` draws an episode from numpy whatever the index (a few-shot sampler,
    shirleyzhu233/PyTorch-MAML@eee3fe3) was read under each index's seeds: every index its
    own episode, so verify said EQUIVALENT, "ranks fed disjoint samples (2+2)", where the real
    ranks, seeded alike, drew the same episodes (DP067, true). Such a dataset is measured
    index-blind and keeps its native draws; one whose sample also holds its index (a label)
    stays seeded per index."""
    result = subprocess.run(
        [sys.executable, "-c", _INDEX_BLIND_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.strip() == "ok", result.stderr


def _loader_record(**fields: Any) -> dict[str, Any]:
    return {"sampler": "RandomSampler", "dataset_class": "Masked", "own_rngs": [],
            "reproducible": True, "batched_read": False, **fields}  # fmt: skip


_SYSTEM_RNG = {"name": "Masked.rng", "kind": "random.SystemRandom", "created": "train.py:17",
               "drawn": "train.py:24", "seedable": False}  # fmt: skip


def test_a_generator_no_seed_reaches_is_named_not_the_loader(tmp_path: Path) -> None:
    evidence = _evidence(tmp_path, 1.0, rank1_inputs=["c"])  # b missing, c added
    evidence.original.data["loaders"] = [_loader_record(own_rngs=[_SYSTEM_RNG])]
    causes = diagnose(evidence)
    assert [c.key for c in causes] == ["not_comparable"]
    assert causes[0].title == (
        "not comparable step by step: Masked draws from a generator of its own that cannot be "
        "seeded"
    )
    assert "Masked.rng (random.SystemRandom, created at train.py:17, drawn at train.py:24)" in (
        causes[0].detail
    )
    assert "DataLoader" not in causes[0].fix


def test_an_unreproducible_read_explains_updates_that_differ_with_the_data_split_right(
    tmp_path: Path,
) -> None:
    """The draw lands where the fingerprint does not look (a target, a mask): the samples
    split right, the updates differ: the read's evidence, not "no known cause matched"."""
    evidence = _evidence(tmp_path, 1.0)
    u = evidence.numerics.diffs[0]
    evidence.numerics.diffs[0] = type(u)(u.step, u.key, u.name, u.shape, 0.3, 1e-3, False)
    evidence.numerics.first_diverging_step = 1
    evidence.original.data["loaders"] = [
        _loader_record(reproducible=False, batched_read=True, sampler="WeightedRandomSampler")
    ]
    causes = diagnose(evidence)
    assert [c.key for c in causes] == ["not_comparable"]
    assert "Masked[0] read twice under the same seeds gave two values" in causes[0].detail
    # the data split right: neither the batched read nor the sampler is a cause
    assert "__getitems__" not in causes[0].detail and "Weighted" not in causes[0].detail


def test_a_sampler_of_its_own_makes_the_batches_not_comparable(tmp_path: Path) -> None:
    evidence = _evidence(tmp_path, 1.0, rank1_inputs=["c"])
    evidence.original.data["loaders"] = [_loader_record(sampler="RandomIdentitySampler")]
    causes = diagnose(evidence)
    assert [c.key for c in causes] == ["not_comparable"]
    assert causes[0].title == (
        "not comparable step by step: the original's sampler RandomIdentitySampler draws its "
        "own order"
    )


def test_batches_that_differ_say_what_verify_ruled_out(tmp_path: Path) -> None:
    seeded = {**_SYSTEM_RNG, "kind": "random.Random", "seedable": True}
    evidence = _evidence(tmp_path, 1.0, rank1_inputs=["c"])
    evidence.original.data["loaders"] = [_loader_record(own_rngs=[seeded])]
    evidence.original.data["samplers"] = [{"kind": "RandomSampler", "aligned": True}]
    causes = diagnose(evidence)
    assert [c.key for c in causes] == ["data_differs"]
    assert causes[0].detail.endswith(
        "checked: every rank built the same dataset; the dataset's own generators were seeded "
        "per sample (Masked.rng (random.Random, created at train.py:17, drawn at train.py:24)); "
        "sampler order aligned (RandomSampler in the original, none in the migration)"
    )


def test_batchnorm_over_chunks_the_program_cuts_itself_is_named(tmp_path: Path) -> None:
    """kenziyuliu/MS-G3D@2f927f4: the loop cuts each batch of 8 into forwards of
    `forward_batch_size` 4 (gradient accumulation); DataParallel scattered each forward in 2
    chunks of 2, each rank ran one forward of 4: BatchNorm's groups differ. verify said "no
    known cause matched" (EQUIVALENT with --freeze-batchnorm)."""
    evidence = _evidence(tmp_path, 1.0)
    u = evidence.numerics.diffs[0]
    evidence.numerics.diffs[0] = type(u)(u.step, u.key, u.name, u.shape, 0.3, 1e-3, False)
    evidence.numerics.first_diverging_step = 1
    evidence.original.data["windows"][0]["forwards"] = {"0": [4, 4]}
    evidence.migrated[0].data["windows"][0].update(forwards={"0": [4]}, batchnorm=2)
    causes = diagnose(evidence)
    assert [c.key for c in causes] == ["batchnorm"]
    assert causes[0].detail.startswith(
        "at step 1 the original fed its model 2 forward(s) of 4 samples, which DataParallel "
        "scatters over 2 devices in chunks of 2, and rank 0 1 forward(s) of 4"
    )
    evidence.migrated[0].data["windows"][0]["forwards"] = {"0": [2, 2]}  # the size divided
    assert "forward(s)" not in " ".join(c.detail for c in diagnose(evidence))


def test_batchnorm_over_whole_forwards_names_no_cut(tmp_path: Path) -> None:
    """HHTseng/video-classification@99ebf20 (stop 48 v3-E): the loaders are not sharded,
    so rank 0 ran the original's very forward of 4 samples; the cause said "the program cuts
    each batch itself before the model", which it does not. It now says what is true."""
    evidence = _evidence(tmp_path, 1.0)
    u = evidence.numerics.diffs[0]
    evidence.numerics.diffs[0] = type(u)(u.step, u.key, u.name, u.shape, 0.3, 1e-3, False)
    evidence.numerics.first_diverging_step = 1
    evidence.original.data["windows"][0]["forwards"] = {"0": [4]}
    evidence.migrated[0].data["windows"][0].update(forwards={"0": [4]}, batchnorm=2)
    detail = next(c.detail for c in diagnose(evidence) if c.key == "batchnorm")
    assert "rank 0 1 forward(s) of 4: BatchNorm normalised other groups of samples. Rank 0 " in (
        detail
    )
    assert "nothing split the batch over the ranks" in detail
    assert "cuts each batch itself" not in detail


def test_a_buffer_apart_before_the_parameters_is_named_not_rounding(tmp_path: Path) -> None:
    """lemniscate's memory bank (stop 28, G5): the bank, a buffer changed in a custom
    Function's backward by each rank's part of the batch, differs after step 1; the
    parameters from step 2. Named (`buffer_diverged`, the buffer's name), not "likely float
    rounding growing"; a buffer apart only after the parameters, or by rounding, is not."""
    from dp2ddp.verify.buffers import buffer_divergence

    def with_buffers(ev: Evidence, banks: list[tuple[float, float]]) -> Evidence:
        for event in ev.original.events:
            event["buffers"] = {"MemoryBank.bank": [10.0, 4.0], "bn.running_mean": [1.0, 1.0]}
        for event, bank in zip(ev.migrated[0].events, banks, strict=True):
            event["buffers"] = {"MemoryBank.bank": list(bank), "bn.running_mean": [1.0, 1.0]}
        return ev

    def evidence(where: Path) -> Evidence:
        ev = _batchnorm_evidence(where, 2)
        for window in ev.migrated[0].data["windows"]:
            window["batchnorm"] = 0
        return ev

    ev = with_buffers(evidence(tmp_path / "a"), [(12.0, 4.5), (12.0, 4.5), (12.0, 4.5)])
    assert buffer_divergence(ev.original.events, ev.migrated[0].events) == (
        1, "MemoryBank.bank", 0.5,
    )  # fmt: skip
    causes = diagnose(ev)
    assert [c.key for c in causes] == ["buffer_diverged"], causes
    assert "MemoryBank.bank" in causes[0].title
    assert "after step 1" in causes[0].detail and "from step 2" in causes[0].detail
    assert "all_gather" in causes[0].fix and "DP007" in causes[0].fix
    # float rounding in a buffer: still the rounding explanation
    ev = with_buffers(evidence(tmp_path / "b"), [(10.0 + 1e-7, 4.0)] * 3)
    assert [c.key for c in diagnose(ev)] == ["rounding_growth"]
    # a buffer apart only after the parameters: not its cause
    ev = with_buffers(evidence(tmp_path / "c"), [(10.0, 4.0), (10.0, 4.0), (12.0, 4.5)])
    assert [c.key for c in diagnose(ev)] == ["rounding_growth"]


def test_migration_warnings_of_unchanged_modules_reach_the_causes(tmp_path: Path) -> None:
    """A module the migration leaves unchanged (a trainer with no wrap of its own) keeps its
    warnings in verify's evidence, with the line: DP043 names the loss as the cause
    (fresh round V1: it was missing, and verify blamed float rounding)."""
    from dp2ddp.options import MigrateOptions
    from dp2ddp.verify import scan
    from dp2ddp.verify.project import migrate_copy

    (tmp_path / "src").mkdir()
    entry = tmp_path / "src" / "main.py"
    entry.write_text(
        "import torch\nimport torch.nn as nn\nfrom trainer import Trainer\n\n"
        "model = nn.DataParallel(nn.Linear(4, 3))\ntrainer = Trainer(model)\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.5)\n"
        "x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))\n"
        "loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=4)\n"
        "for xb, yb in loader:\n"
        "    loss = trainer.loss(xb, yb)\n"
        "    opt.zero_grad()\n    loss.backward()\n    opt.step()\n"
    )
    (tmp_path / "src" / "trainer.py").write_text(
        "import torch.nn as nn\n\n\nclass Trainer:\n    def __init__(self, model):\n"
        "        self.model = model\n        self.ce = nn.CrossEntropyLoss(ignore_index=0)\n\n"
        "    def loss(self, x, y):\n        return self.ce(self.model(x), y)\n"
    )
    project = migrate_copy(entry, tmp_path / "work", MigrateOptions())
    assert "trainer.py" not in project.files  # unchanged by the migration
    (dp043,) = [w for w in project.warnings if ": DP043 " in w]
    assert dp043.split(": DP043 ")[0].endswith("trainer.py:7:39")
    (site,) = scan.mean_losses(entry, project.warnings)
    assert site.split(" ")[0].endswith("trainer.py:7")


def test_pair_losses_only_names_losses_the_program_uses(tmp_path: Path) -> None:
    """A loss module's pair loss the program never instantiates is no cause (fresh round
    V6: SCAN's SimCLRLoss was named from DP040); the one it uses is, also through an
    attribute of the module."""
    (tmp_path / "losses.py").write_text(
        "import torch\nimport torch.nn as nn\n\n\n"
        "class SimCLRLoss(nn.Module):\n    def forward(self, x):\n"
        "        return (x @ x.t()).logsumexp(1).mean()\n\n\n"
        "class ContrastLoss(nn.Module):\n    def forward(self, x):\n"
        "        return (x @ x.t()).logsumexp(1).mean()\n"
    )
    entry = tmp_path / "train.py"
    entry.write_text(
        "import torch.nn as nn\nimport losses\nfrom losses import SimCLRLoss\n\n"
        "model = nn.DataParallel(nn.Linear(4, 2))\ncriterion = losses.ContrastLoss()\n"
    )
    found = scan.pair_losses(entry)
    assert [site.split(" ")[1] for site in found] == ["ContrastLoss.forward()"]
    entry.write_text(entry.read_text().replace("losses.ContrastLoss()", "SimCLRLoss()"))
    assert [site.split(" ")[1] for site in scan.pair_losses(entry)] == ["SimCLRLoss.forward()"]


def test_tensors_in_arguments_in_order_and_what_is_too_deep() -> None:
    """replicas.tensors_in, the one walk of a forward's arguments: fingerprint.first_tensor
    passes over a value too deep to follow, the chunked forward gives up on it."""
    a, b = torch.zeros(1), torch.ones(1)
    assert fingerprint.first_tensor(((1, [a]), {"k": b})) is a
    assert replicas._tensors(((1, [a]), {"k": b})) == [a, b]
    deep = [[[[[[a]]]]]]
    assert fingerprint.first_tensor((deep, b)) is b
    assert replicas._tensors((deep, b)) is None


def test_cause_batch_ratio_loss_from_the_migrations_dp071(tmp_path: Path) -> None:
    """Updates that differ unevenly, and verify's own migration warned DP071 (a Dice loss in
    a module without a wrap): named as the cause, at the warning's place (TransUNet said
    "no known cause"); without the warning it is not named."""
    warning = "utils.py:28:44: DP071 loss is a ratio of two sums over the batch: (2 * i) / (z + y)"
    u = torch.tensor([1e-3, -2e-3, 5e-4, 1e-3])
    uneven = u * torch.tensor([1.0, 1.2, 0.9, 1.0])
    for warnings, named in (((warning,), True), ((), False)):
        folder = tmp_path / str(named)
        folder.mkdir()
        original, migrated = _pair(folder, [u], [uneven])
        numerics = compare_updates(original, migrated, 1e-4, 1e-8)
        ranks = [migrated, _record(1, inputs=[[]])]
        original.data["windows"][0]["inputs"] = {"0": ["a", "b"]}
        migrated.data["windows"][0]["inputs"] = {"0": ["a"]}
        ranks[1].data["windows"][0]["inputs"] = {"0": ["b"]}
        ev = Evidence(2, numerics, check_sharding(original, ranks, 1), True, "", original,
                      ranks, [], [], migration_warnings=warnings)  # fmt: skip
        keys = [c.key for c in diagnose(ev)]
        assert ("batch_ratio_loss" in keys) is named, keys
        if named:
            cause = next(c for c in diagnose(ev) if c.key == "batch_ratio_loss")
            assert "utils.py:28" in cause.detail and "DP071" in cause.detail


def test_sample_digests_ignore_per_batch_padding_width() -> None:
    """A collate that pads each batch to its longest sample pads a sample to another width
    on each rank than in the original's whole batch: the same sample, the same digest
    (V_pad_per_batch_collate); samples that differ in content or dtype stay apart."""
    from dp2ddp.verify.digest import sample_digests

    whole = torch.tensor([[4, 5, 0, 0], [6, 0, 0, 0], [7, 8, 9, 1]])
    rank0 = torch.tensor([[4, 5], [6, 0]])  # padded to its own longest, 2
    rank1 = torch.tensor([[7, 8, 9, 1]])
    assert sample_digests(whole) == sample_digests(rank0) + sample_digests(rank1)
    # padded along the time axis of a (time, feature) sample, as pad_sequence does
    features = torch.zeros(2, 5, 3)
    features[0, :2] = 1.0
    features[1, :4] = 2.0
    assert sample_digests(features)[0] == sample_digests(features[:1, :2])[0]
    assert len(set(sample_digests(features))) == 2
    assert sample_digests(torch.tensor([[4, 5]])) != sample_digests(torch.tensor([[4, 6]]))
    assert sample_digests(torch.tensor([[4, 5]])) != sample_digests(torch.tensor([[4.0, 5.0]]))
    # an unpadded batch (images) is hashed in one pass; its samples stay apart
    images = torch.arange(2 * 3 * 4 * 4, dtype=torch.float32).reshape(2, 3, 4, 4) + 1
    assert len(set(sample_digests(images))) == 2


def test_the_copy_keeps_a_git_root_so_helpers_beside_the_entry_folder_migrate(
    tmp_path: Path,
) -> None:
    """A project whose only root marker is .git (a clone): the copy skips .git, so without
    one the entry's folder became the copy's root and `../utils`, put on sys.path through
    sys.path[0], was left out of the verified migration (fresh round stop 31:
    qiuqiangkong/audioset_tagging_cnn@d2f4b8c, whose statistics verify saw written twice)."""
    from dp2ddp.options import MigrateOptions
    from dp2ddp.verify.project import migrate_copy

    clone = tmp_path / "clone"  # beside verify's work folder, not above it
    (clone / ".git").mkdir(parents=True)
    (clone / "scripts").mkdir()
    (clone / "utils").mkdir()
    entry = clone / "scripts" / "train.py"
    entry.write_text(
        "import os\nimport sys\n\nsys.path.insert(1, os.path.join(sys.path[0], '../utils'))\n"
        "import torch.nn as nn\nfrom helpers import say\n\n"
        "model = nn.DataParallel(nn.Linear(4, 3))\nsay('built')\n"
    )
    (clone / "utils" / "helpers.py").write_text("def say(text):\n    print(text)\n")
    project = migrate_copy(entry, tmp_path / "work", MigrateOptions())
    assert os.path.join("utils", "helpers.py") in project.files, project.files


def test_a_buffer_apart_after_updates_moved_by_rounding_is_rounding(tmp_path: Path) -> None:
    """VITA-Group/DeblurGANv2@c16bd9f5 (stop 49 g2): the original ran DataParallel's replicas;
    Adam moved biases whose gradients are zero up to rounding apart from step 2 (excused as
    rounding), a BatchNorm running mean followed 1.2e-4 apart after step 3, the parameters
    failed from step 5. "a buffer went apart first" was false (the updates were apart
    before it), and the replicas kept the rounding explanation away: now rounding growth,
    likely, with the earlier rounded updates as its evidence."""
    ev = _batchnorm_evidence(tmp_path, 3)
    for window in ev.migrated[0].data["windows"]:
        window["batchnorm"] = 0
    for window in ev.original.data["windows"]:
        window["replicated"] = 1
    ev.numerics.diffs.append(
        StepDiff(1, "o0.g0.p1", "bias", (4,), 1.5, 1e-7, passed=True, rounding=True)
    )
    for event in ev.original.events:
        event["buffers"] = {"bn.running_mean": [10.0, 4.0]}
    for step, event in enumerate(ev.migrated[0].events, start=1):
        event["buffers"] = {"bn.running_mean": [10.0 if step < 2 else 10.01, 4.0]}
    causes = diagnose(ev)
    assert [c.key for c in causes] == ["rounding_growth"], causes
    assert "from step 1 the updates of bias already differed" in causes[0].detail
    assert "DataParallel's replicas" in causes[0].detail


def test_a_batch_of_one_repeated_sample_split_right_is_no_same_data() -> None:
    """Round 38 (cw2vec-pytorch): a batch whose rows are all one sample, split 4+4, is
    alike on the ranks and its union the original's: sharded, not "same data"; the same
    rows fed whole to each rank are."""
    from dp2ddp.verify.sharding import _step

    split = _step(1, "model", ["a"] * 8, [["a"] * 4, ["a"] * 4])
    assert split.ok and not split.identical
    whole = _step(1, "model", ["a"] * 8, [["a"] * 8, ["a"] * 8])
    assert whole.identical and not whole.ok
    mixed = _step(1, "model", ["a", "b"], [["a", "b"], ["a", "b"]])
    assert mixed.identical
