"""Rank-0 guards: which conditions count as one, and the rewrite finding nothing left to do."""

from __future__ import annotations

import libcst as cst
import pytest
from conftest import FIXTURES, fixture_cases, run_pass

from dp2ddp import migrate_source
from dp2ddp.transforms.rank_zero import RankZeroOnly
from dp2ddp.transforms.rank_zero.guards import is_main_test, is_not_main_test


@pytest.mark.parametrize(
    "test",
    [
        "ddp_is_main()",
        "RANK == 0",
        "rank == 0",
        "0 == rank",
        "args.rank == 0",
        "self.global_rank == 0",
        "args.local_rank in [-1, 0]",
        "args.local_rank in (-1, 0)",
        "local_rank <= 0",
        "dist.get_rank() == 0",
        "torch.distributed.get_rank() == 0",
        "args.rank % ngpus_per_node == 0",
        "master_process",
        "args.is_master",
        "accelerator.is_main_process",
        "accelerator.is_local_main_process",
        "trainer.is_world_process_zero()",
        "is_main_process()",
        "not dist.is_initialized() or dist.get_rank() == 0",
        "epoch % 10 == 0 and rank == 0",
        "not rank != 0",
    ],
)
def test_main_tests(test: str) -> None:
    assert is_main_test(cst.parse_expression(test))


@pytest.mark.parametrize(
    "test",
    [
        "epoch == 0",
        "step % 100 == 0",
        "rank == 1",
        "rank != 0",
        "args.local_rank in [0, 1]",
        "world_size == 0",
        "verbose",
        "main_loss > 0",
        "is_best",
    ],
)
def test_not_main_tests(test: str) -> None:
    assert not is_main_test(cst.parse_expression(test))


@pytest.mark.parametrize(
    "test", ["rank != 0", "dist.get_rank() > 0", "not ddp_is_main()", "args.rank not in (-1, 0)"]
)
def test_other_rank_tests(test: str) -> None:
    assert is_not_main_test(cst.parse_expression(test))
    assert not is_main_test(cst.parse_expression(test))


def _rank_zero(code: str) -> str:
    return run_pass(RankZeroOnly, code)[0]


RANK_ZERO_CASES = fixture_cases("rank_zero_", migrated=True)


def test_rank_zero_fixtures_exist() -> None:
    assert len(RANK_ZERO_CASES) >= 5


@pytest.mark.parametrize("case", RANK_ZERO_CASES)
def test_rewrite_is_idempotent(case: str) -> None:
    """Run on its own output, the rewrite finds every statement already guarded."""
    expected = (FIXTURES / case / "expected.py").read_text()
    assert _rank_zero(expected) == expected


def test_only_acts_on_dataparallel_scripts() -> None:
    """The pipeline stops after detect when a file has no DataParallel: nothing is guarded."""
    code = "import torch\nprint('hi')\ntorch.save({}, 'a.pt')\n"
    result = migrate_source(code)
    assert result.code == code and not result.changes


def test_guarded_call_with_side_effects_stays_on_every_rank() -> None:
    code = (
        "import torch\n"
        "def main(model, loader):\n"
        "    print('acc', evaluate(model, loader))\n"
        "    print('done', len(loader))\n"
    )
    out = _rank_zero(code)
    assert "    print('acc', evaluate(model, loader))\n    if ddp_is_main():\n" in out
