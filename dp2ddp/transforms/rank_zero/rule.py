"""The shape of a rank_zero rule: one feature, reading the shared facts, reporting through
the pass (so every record stays under the pass's NAME, "rank_zero")."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero import RankZeroOnly
    from dp2ddp.transforms.rank_zero.facts import RankZeroFacts


class Rule:
    """One feature of the rank_zero pass."""

    def __init__(self, transform: RankZeroOnly) -> None:
        self.t = transform

    @property
    def facts(self) -> RankZeroFacts:
        return self.t.facts


class CallRule(Rule):
    """A rule that rewrites calls: asked in the pass's order, the first that answers wins."""

    def leave_call(
        self, original: cst.Call, updated: cst.Call, names: set[str]
    ) -> cst.BaseExpression | None:
        """The call rewritten (or `updated` as it is) when the call is this rule's; None when
        it is not."""
        raise NotImplementedError
