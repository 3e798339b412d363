"""DP066: a rank-0 write no read matched, whose file a later read on every rank may name.

Moved out of barriers.py whole (its one meaning: paths that may be one file and are not
spelled alike get a warning instead of a barrier)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dp2ddp.transforms.rank_zero.path_shapes import LOOP_NAME, may_name_same, spelled_apart

if TYPE_CHECKING:
    from dp2ddp.transforms.rank_zero.barriers import Barriers


def maybe_read(
    rule: Barriers,
    write: cst.Call,
    texts: tuple[str, ...],
    reads: dict[str, list[cst.Call]],
    spelled: list[cst.Call],
) -> None:
    """DP066 on a rank-0 write no read matched, at the first later read on every rank
    whose path may name the same file (`spelled`: a loop's wildcard matched it;
    path_shapes.may_name_same). Not where both paths spell out and differ."""
    written = rule.spell(write, write=True)
    for text in texts:
        for read_text, calls in reads.items():
            if spelled:
                calls, text = spelled, texts[0]
            elif not may_name_same(text, read_text):
                continue
            later = [
                r
                for r in calls
                if rule.may_follow(write, r) and not spelled_apart(written, rule.spelled_at(r))
            ]
            if not later:
                continue
            write_line = rule.t.input_position(write)[0]
            read_line = rule.t.input_position(later[0])[0]
            shown = texts[0] if LOOP_NAME in text else text
            read_shown = rule.t.code(later[0])
            rule.t.warn(
                write,
                "DP066",
                f"written on rank 0 at line {write_line} (`{shown}`), maybe the file every "
                f"rank reads at line {read_line} (`{read_shown}`): the paths could not be "
                "matched, so no barrier between",
            )
            return
