"""Stop 55 s3: verify's false verdicts and false causes left at stop 54, each as a class.

Each pair below printed a false text at the base (14339d9) and prints the true one now; all
run in one original process and one torchrun launch (shared_verify):

* r1-B: a character GPT samples text between steps in train mode; its sampling forwards fed
  no update but were counted, and with verify's per-rank dropout masks the ranks sampled
  other tokens: "ranks overlap" for batches every rank drew alike (fed.py drops them).
* r1-C: the same program has no DataLoader: the cause said "per-process batch not divided
  … in the migrated DataLoader" / "Give the training DataLoader sampler=" (hand_made.py).
* r1-E: nn.LSTM(dropout=) was "random numbers drawn inside the model's forward … not by
  dropout", and --no-dropout left it drawing (probes._rnn_probe).
* r2-C: noise sized by the batch: "Such draws cannot be aligned between 1 and W processes"
  (draw_cause.DRAW_SHARE_FIX).
* stop 54 x2: an original that wraps nothing on CPU, its model fed a graph object: "optimized
  only by the migration" of every parameter (recorder.note_unsampled).
* v3-C, ISD: "no draw in a forward() of the program's modules ran" for a draw in a method
  forward calls, and the key queue per rank (DP007) unnamed (scan._forward_calls,
  buffers.said_buffer). GenerativeSkinLesion: a critic's penalty through a static_graph wrap
  named "DDP without find_unused_parameters" (failures.unused_parameters_cause) and, where it
  drifts, "migrate named no place" (ratio_cause.APART_CODES with DP023, DP096).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from shared_verify import Pair, Shared, report_of, run_pairs_across_files

from dp2ddp.verify.fed import FedBatches, InputSpan
from dp2ddp.verify.ratio_cause import ranks_apart
from dp2ddp.verify.recorder import Window
from dp2ddp.verify.report import VerifyReport

CASES = Path(__file__).parent / "verify_cases_s55"

SAMPLED = "test_sampling_between_steps_is_no_training_input"
PAIRS_ACROSS_FILES = True  # tests/shared_verify.py: one launch with the other such files
PAIRS: dict[str, Pair] = {
    "sampled": Pair(SAMPLED, CASES / "sampled_between_steps_dp.py"),
    "sampled_no_dropout": Pair(
        SAMPLED, CASES / "sampled_between_steps_dp.py", options={"no_dropout": True}
    ),
    "recurrent": Pair("test_recurrent_dropout_is_dropout", CASES / "recurrent_dropout_dp.py"),
    "recurrent_off": Pair(
        "test_recurrent_dropout_is_dropout",
        CASES / "recurrent_dropout_dp.py",
        options={"no_dropout": True},
    ),
    "noise": Pair(
        "test_noise_sized_by_the_batch_can_be_aligned", CASES / "noise_sized_by_batch_dp.py"
    ),
    "graph": Pair(
        "test_an_unwrapped_original_names_its_parameters", CASES / "graph_object_unwrapped_dp.py"
    ),
    "queue": Pair(
        "test_a_queue_per_rank_and_a_draw_in_a_method", CASES / "shuffled_keys_queue_dp.py"
    ),
    "penalty": Pair(  # its migrated run fails (the static graph's error): after the others
        "test_a_static_graph_failure_names_dp096_and_dp023",
        CASES / "penalty_static_graph_dp.py",
        ends_launch=True,
    ),
}


@pytest.fixture(scope="module")
def shared(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Shared]:
    """The selected tests' pairs, run in one original process and one launch with the
    other files' that set PAIRS_ACROSS_FILES (stop 60: one launch for five files)."""
    return run_pairs_across_files(request, tmp_path_factory, timeout=400.0)


def _texts(report: VerifyReport) -> str:
    return "\n".join(f"{c.title}\n{c.detail}\n{c.fix}" for c in report.causes)


@pytest.mark.e2e
def test_sampling_between_steps_is_no_training_input(shared: dict[str, Shared]) -> None:
    """At the base every rank drew the whole batch and verify said "ranks overlap" (the
    sampling forwards counted as training input). Since stop 55 s4 the migration draws the
    `torch.randint` batch alike and splits it as DataParallel did, so the sampling forwards
    between steps no longer read as training input and the pair is EQUIVALENT, with and
    without dropout."""
    for key in ("sampled", "sampled_no_dropout"):
        report = report_of(shared, key)
        assert report.exit_code == 0, report
        assert "DataLoader sampler" not in _texts(report) and "migrated DataLoader" not in _texts(
            report
        )


@pytest.mark.e2e
def test_recurrent_dropout_is_dropout(shared: dict[str, Shared]) -> None:
    """nn.LSTM(dropout=0.3): named dropout, not "not by dropout"; --no-dropout switches it
    off and the pair is EQUIVALENT (the base: NOT EQUIVALENT with the same flag)."""
    report = report_of(shared, "recurrent")
    assert report.exit_code == 1, report
    assert [c.key for c in report.causes] == ["dropout"], report.causes
    assert "recurrent layer's dropout=" in report.causes[0].detail
    assert "not by dropout" not in _texts(report)
    off = report_of(shared, "recurrent_off")
    assert off.exit_code == 0, off


@pytest.mark.e2e
def test_noise_sized_by_the_batch_can_be_aligned(shared: dict[str, Shared]) -> None:
    """`torch.randn(b, 2)` with b the loader batch's size: at the base verify said "cannot be
    aligned between 1 and W processes"; since stop 55 s4 the migration draws it as this
    rank's rows of one global draw (ddp_draw_share), and the pair is EQUIVALENT."""
    report = report_of(shared, "noise")
    assert report.exit_code == 0, report
    assert not [c for c in report.causes if "cannot be aligned" in c.fix], report.causes


@pytest.mark.e2e
def test_an_unwrapped_original_names_its_parameters(shared: dict[str, Shared]) -> None:
    """DataParallel only under `torch.cuda.device_count() > 1`, the model fed a graph
    object: EQUIVALENT (the base: "optimized only by the migration" of every parameter)."""
    report = report_of(shared, "graph")
    assert report.exit_code == 0, report
    assert {row.name for row in report.worst_parameters} >= {"conv1.weight", "conv2.bias"}


@pytest.mark.e2e
def test_a_queue_per_rank_and_a_draw_in_a_method(shared: dict[str, Shared]) -> None:
    """The queue each rank fills with its own keys (DP007 at line 25) first; the draws in
    forward named at the method's line 17 (the base: only the draws, "no draw in a forward()
    of the program's modules ran: a library layer's")."""
    report = report_of(shared, "queue")
    assert report.exit_code == 1, report
    keys = [c.key for c in report.causes]
    assert keys[0] == "buffer_diverged", keys
    assert "queue" in report.causes[0].title and "shuffled_keys_queue_dp.py:25" in (
        report.causes[0].detail
    )
    (drawn,) = [c for c in report.causes if c.key == "random_in_forward"]
    assert "shuffled_keys_queue_dp.py:17 torch.randperm(n)" in drawn.detail, drawn
    assert "library layer" not in drawn.detail


@pytest.mark.e2e
def test_a_static_graph_failure_names_dp096_and_dp023(shared: dict[str, Shared]) -> None:
    """A critic's penalty backpropagated on its own through a wrap dp2ddp gave
    static_graph=True: the run fails, and the cause is the static graph with DP096 and DP023
    at their lines (the base: "DDP without find_unused_parameters", pass it)."""
    report = report_of(shared, "penalty")
    assert report.exit_code == 2, report
    (cause,) = report.causes
    assert cause.key == "static_graph_changed", cause
    assert "DP096 at" in cause.detail and "DP023 at" in cause.detail, cause
    assert "find_unused_parameters=True to" not in cause.fix


def test_ranks_apart_names_a_penalty_through_a_static_graph() -> None:
    """Where such a critic drifts instead (GenerativeSkinLesion: ranks out of sync after
    step 1), DP023 and DP096 are the places migrate named (the base: "named no place")."""
    warnings = (
        "./trainer.py:210:12: DP023 double backward through a DDP model: the penalty",
        "./trainer.py:98:5: DP096 a model called several times before one backward",
    )
    cause = ranks_apart(warnings, "rank 1 differs after step 1")
    assert "DP023" in cause.title and "DP096" in cause.title, cause
    assert "named no place" not in cause.detail


def test_a_forward_reached_a_window_later_keeps_its_inputs() -> None:
    """fed.py decides a window late: a GAN's `fake = G(z)` is reached by G's backward after
    D's step (kept), a sampling forward never (dropped at the next step's close)."""
    fed, first, second = FedBatches(), Window(1), Window(2)
    g_weight, d_weight = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)

    def forward(window: Window, ordinal: str, rows: list[str], output: torch.Tensor) -> None:
        start = len(window.inputs.setdefault(ordinal, []))
        window.inputs[ordinal].extend(rows)
        fed.forward(output, InputSpan(ordinal, (start, start + len(rows)), None))

    fake = g_weight * 2
    forward(first, "0", ["z1", "z2"], fake)  # G
    sampled = g_weight * 3
    forward(first, "0", ["p1"], sampled)  # sampling, never backpropagated
    real = d_weight * 1
    forward(first, "1", ["x1", "x2"], real)  # D on real
    (real.sum() + (d_weight * fake.detach()).sum()).backward()  # type: ignore[no-untyped-call]
    fed.close(first)  # D's step: G's and the sampling's forwards not reached yet
    assert first.inputs == {"0": ["z1", "z2", "p1"], "1": ["x1", "x2"]}
    (d_weight * fake).sum().backward()  # type: ignore[no-untyped-call]  # G's step reaches fake
    fed.close(second)
    assert first.inputs == {"0": ["z1", "z2"], "1": ["x1", "x2"]}
