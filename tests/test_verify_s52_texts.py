"""verify's texts that said more than it measured (stop 52, helper s4): units on inputs built
here, no launch."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from test_verify_units import _cutmix_evidence

from dp2ddp.verify import protocol
from dp2ddp.verify.causes import diagnose
from dp2ddp.verify.config import VerifyConfig
from dp2ddp.verify.end_checks import compared_scope
from dp2ddp.verify.records import RankRecord
from dp2ddp.verify.render import to_markdown, to_text
from dp2ddp.verify.report import EQUIVALENT, VerifyReport

_DP147 = (
    "train.py:16:35: DP147 the batch's rows taken in a drawn order: each rank permutes its own "
    "share only: `x[perm]` takes the batch's rows in the order `torch.randperm(x.size(0))` "
    "draws (line 15)"
)


def test_a_batch_mixed_in_a_drawn_order_names_dp147_not_each_process_its_own(
    tmp_path: Path,
) -> None:
    """mixup under verify (stop 51 s1): a program seeding alike has every rank draw the same
    permutation and weight; the cause said "each process draws its own values" with the fix
    "draw on rank 0 and broadcast" (a broadcast order still pairs within each share)."""
    evidence = _cutmix_evidence(tmp_path, rng=True)
    evidence = dataclasses.replace(
        evidence, migration_warnings=(*evidence.migration_warnings, _DP147)
    )
    causes = diagnose(evidence)
    assert [c.key for c in causes] == ["permuted_batch"]
    cause = causes[0]
    assert "DP147 from dp2ddp migrate at train.py:16" in cause.detail
    assert "every rank draws the same permutation" in cause.detail
    assert "verify seeds rank 0 as the original and the others apart" in cause.detail
    assert "partner from its own share only" in cause.detail
    assert "draws its own values" not in cause.detail
    assert "broadcast" not in cause.fix and "DP147" in cause.fix
    assert cause.detail.startswith("the DataLoader batches were split right (2+2")


def test_draws_in_the_loop_without_dp147_say_the_ranks_draw_alike(tmp_path: Path) -> None:
    """Without a permuted batch the loop's draws stay `random_in_loop`, and its text says how
    the ranks are seeded: alike only where the program seeds alike (alignment.process_seed
    seeds the ranks apart), never "seeded alike by verify"."""
    causes = diagnose(_cutmix_evidence(tmp_path, rng=True))
    assert [c.key for c in causes] == ["random_in_loop"]
    assert "each rank for its own share" in causes[0].detail
    assert "verify seeds rank 0 as the original and the others apart" in causes[0].detail


def _original(status: str, later: int) -> RankRecord:
    return RankRecord(0, Path("."), status, {"later_steps": later}, {}, "", "")


def test_an_equivalent_verdict_from_three_steps_says_three_steps_only(tmp_path: Path) -> None:
    """idstcv/KDA@0f509e6 (stop 51 v3): `--steps 3` said EQUIVALENT of a program whose
    difference starts at step 6; the verdict now says what it covered."""
    config = VerifyConfig(tmp_path / "train.py", steps=3)
    scope = compared_scope(config, 3, _original(protocol.STOPPED, 0), None)
    assert scope.startswith("the first 3 optimizer steps, compared step by step; the runs were")
    assert "any later step was not compared" in scope
    report = VerifyReport(EQUIVALENT, 0, "train.py", "m", 2, "gloo", 3, 3, scope=scope)
    text = to_text(report)
    assert text.startswith("dp2ddp verify: EQUIVALENT over the first 3 optimizer steps only\n")
    assert f"  verdict covers     {scope}" in text
    assert "✅ equivalent over the first 3 optimizer steps only**" in to_markdown(report)
    assert compared_scope(config, 3, _original(protocol.FINISHED, 0), None) == scope
    ended = compared_scope(config, 2, _original(protocol.FINISHED, 0), None)
    assert ended == ""  # the original ended within the steps: the whole run compared
    whole = dataclasses.replace(report, scope=ended)
    assert to_text(whole).startswith("dp2ddp verify: EQUIVALENT\n")


def test_to_end_compares_the_final_parameters_of_the_later_steps(tmp_path: Path) -> None:
    """--to-end: the later steps are judged by the final parameters against the steps'
    tolerance, and said not compared step by step."""
    config = VerifyConfig(tmp_path / "train.py", steps=3, to_end=True)
    far = compared_scope(config, 3, _original(protocol.FINISHED, 6), (0.21, "weight"))
    assert "the original's 6 later steps were not compared step by step" in far
    assert "differ by a relative distance up to 0.21 (weight), beyond rtol 0.0001" in far
    assert "a difference may begin after step 3" in far
    near = compared_scope(config, 3, _original(protocol.COMPARED, 6), (2e-6, "weight"))
    assert near.endswith(
        "the final parameters agree within rtol 0.0001 (relative distance up to 2e-06)"
    )
    none = compared_scope(config, 3, _original(protocol.COMPARED, 6), None)
    assert none.endswith("nor the final parameters (none recorded)")
    assert compared_scope(config, 3, _original(protocol.COMPARED, 0), (0.5, "w")) == ""
