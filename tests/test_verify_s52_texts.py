"""verify's texts that said more than it measured (stop 52, helper s4): units on inputs built
here, no launch."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from test_verify_units import _cutmix_evidence

from dp2ddp.verify.causes import diagnose

_DP147 = (
    "train.py:16:35: DP147 the batch's rows taken in a drawn order: each rank permutes its own "
    "share only: `x[perm]` takes the batch's rows in the order `torch.randperm(x.size(0))` "
    "draws (line 15)"
)


def test_a_batch_mixed_in_a_drawn_order_names_dp147_not_each_process_its_own(
    tmp_path: Path,
) -> None:
    """mixup under verify (stop 51 s1): every rank is seeded alike, so the ranks draw the same
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
    assert "each rank draws the same permutation" in cause.detail
    assert "partner from its own share only" in cause.detail
    assert "draws its own values" not in cause.detail
    assert "broadcast" not in cause.fix and "DP147" in cause.fix
    assert cause.detail.startswith("the DataLoader batches were split right (2+2")


def test_draws_in_the_loop_without_dp147_say_the_ranks_draw_alike(tmp_path: Path) -> None:
    """Without a permuted batch the loop's draws stay `random_in_loop`, and its text says what
    verify's alike seeding makes of them."""
    causes = diagnose(_cutmix_evidence(tmp_path, rng=True))
    assert [c.key for c in causes] == ["random_in_loop"]
    assert "the ranks draw the same values, each for its share" in causes[0].detail
