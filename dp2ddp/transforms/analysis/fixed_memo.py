"""Answers to questions defined through themselves, the same whatever the order of asking.

The uniformity proof (uniformity.py) asks questions that may ask themselves again (`epoch`
is uniform where `epoch += 1` is reached by every rank, which asks about the loop's test,
which reads `epoch`). A question asked again while it is being decided gets an assumed
answer (True: "a value defined through itself is decided by its other parts"; False where
a cycle proves nothing). Before stop 54 the answers decided meanwhile were kept even where
the outer answer came out against its assumption, so a later question got an answer made
under a false assumption: `value(epoch >= max_epochs)` at the loop's `if` was False asked
first and True asked after the same value at its test (stop 53 s4).

`FixedPoint.decide` keeps an answer only when it rests on no assumption still open: one
that leaned on a question still being decided is tentative (reused while that question is
open: the assumptions do not change meanwhile), and when that question is decided its
tentative dependents are kept where its answer is the one assumed (then they are answers of
the fixed point) and dropped where it is not (they are asked again, under the answer now
known). The rules are monotone (an answer made under more optimistic assumptions is no
less optimistic), so an answer against the assumption holds under the true one too: one
run of each question suffices.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable


class FixedPoint:
    """The final answers (`final`), and those resting on questions still being decided."""

    def __init__(self) -> None:
        self.final: dict[Hashable, bool] = {}
        #: question -> (its depth among the open ones, the answer assumed meanwhile)
        self._open: dict[Hashable, tuple[int, bool]] = {}
        #: question -> (answer, the shallowest open question it rests on)
        self._tentative: dict[Hashable, tuple[bool, int]] = {}
        self._made: list[Hashable] = []  # the tentative questions, in the order decided
        self._low = _NONE  # the shallowest open question the current one rested on

    def clear(self) -> None:
        self.final.clear()
        self._tentative.clear()
        self._made.clear()

    def decide(self, key: Hashable, compute: Callable[[], bool], assume: bool = True) -> bool:
        """`key`'s answer, computed once by `compute`; `assume` while it is being computed."""
        if key in self.final:
            return self.final[key]
        if key in self._open:
            depth, assumed = self._open[key]
            self._low = min(self._low, depth)
            return assumed
        if key in self._tentative:
            answer, low = self._tentative[key]
            self._low = min(self._low, low)
            return answer
        depth, outer, start = len(self._open), self._low, len(self._made)
        self._open[key] = (depth, assume)
        self._low = _NONE
        try:
            answer = compute()
        finally:
            del self._open[key]
            low, self._low = self._low, outer
        resting = [k for k in self._made[start:] if self._tentative[k][1] >= depth]
        for k in resting:  # they leaned on `key` (and on nothing open before it)
            held, _ = self._tentative.pop(k)
            if answer == assume and low >= depth:
                self.final[k] = held
            elif answer == assume:
                self._tentative[k] = (held, low)  # as sure as `key` itself
        self._made[start:] = [k for k in self._made[start:] if k in self._tentative]
        if low >= depth:
            self.final[key] = answer
        else:
            self._tentative[key] = (answer, low)
            self._made.append(key)
            self._low = min(self._low, low)
        return answer


_NONE = 1 << 30  # no open question rested on
