"""The uniformity proof answers the same whatever the order of the questions (stop 54 s4):
a value defined through itself is assumed uniform while it is decided, and the answers made
meanwhile are kept only where that assumption held (dp2ddp/transforms/analysis/fixed_memo.py)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from dp2ddp.transforms._support.metadata import PassMetadata
from dp2ddp.transforms._support.nodes import walk
from dp2ddp.transforms.analysis.fixed_memo import FixedPoint
from dp2ddp.transforms.analysis.uniformity import RankUniformity

#: `epoch += 1` under a test of the batch: `epoch >= max_epochs` differs between the ranks
#: at the loop's `if` and at its test alike.
COMPARE = Path(__file__).parent / "fixtures" / "rank_zero_batch_compare" / "input.py"


def _answers(order: list[str]) -> dict[str, bool]:
    view = PassMetadata(cst.parse_module(COMPARE.read_text()), {})
    module = view.wrapper.module
    (test_if,) = [
        s
        for s in walk(module)
        if isinstance(s, cst.If)
        and isinstance(s.test, cst.Comparison)
        and "max_epochs" in module.code_for_node(s.test)
    ]
    uniform = RankUniformity(module, view)
    places: dict[str, cst.CSTNode] = {"test": test_if.test, "if": test_if}
    return {place: uniform.value(test_if.test, places[place]) for place in order}


@pytest.mark.parametrize("order", [["test", "if"], ["if", "test"]])
def test_a_value_asked_at_two_places_in_either_order(order: list[str]) -> None:
    """Before: asked at its test first (False), the same value at the `if` was True, from
    the answers kept while the first was assumed uniform; asked at the `if` first, False."""
    assert _answers(order) == {"test": False, "if": False}


@pytest.mark.parametrize("first", ["a", "b"])
def test_answers_resting_on_a_refuted_assumption_are_asked_again(first: str) -> None:
    """a = b and c, b = a, c = False: asked b first or a first, both are False."""
    memo = FixedPoint()
    rules = {
        "a": lambda: ask("b") and ask("c"),
        "b": lambda: ask("a"),
        "c": lambda: False,
    }

    def ask(key: str) -> bool:
        return memo.decide(key, rules[key])

    asked = {key: ask(key) for key in (first, "a" if first == "b" else "b")}
    assert asked == {"a": False, "b": False}
    assert memo.final == {"a": False, "b": False, "c": False}


def test_answers_resting_on_a_held_assumption_are_kept() -> None:
    """a = b, b = a: the greatest fixed point, both True, each computed once."""
    memo = FixedPoint()
    runs: list[str] = []

    def ask(key: str) -> bool:
        def rule() -> bool:
            runs.append(key)
            return ask("b" if key == "a" else "a")

        return memo.decide(key, rule)

    assert ask("a") and ask("b")
    assert runs == ["a", "b"] and memo.final == {"a": True, "b": True}
