"""Map line numbers of an intermediate version back to the original input.

Transforms run one after another; each reports positions in its own input. The pipeline
diffs consecutive versions so every warning and change points at the user's file.

difflib's SequenceMatcher compares every pair of equal lines (blank lines, `return x`,
`)`): on a generated module of 20,000 lines it took most of a minute a pass (issue 30). It
still diffs every file where that is cheap (so the maps of small files are what they always
were); a larger pair of versions is first cut at common ends and at lines that occur once
in each (patience diff's anchors), and only the pieces between are compared, by
SequenceMatcher where cheap, else by Myers' diff with a bounded amount of work.
"""

from __future__ import annotations

import bisect
import difflib
import os
from collections import Counter
from collections.abc import Callable, Sequence

#: At most this many pairs of equal lines for SequenceMatcher in one comparison.
_PAIRS = 100_000
#: And at most this many lines on either side.
_LINES = 4_000
#: Old × new lines of one rewritten block aligned by resemblance (else by position).
_ALIGNED_PAIRS = 20_000
#: Myers' diff gives up (the lines then count as replaced) after this many steps.
_MYERS_STEPS = 1_000_000

_Block = tuple[int, int, int]  # (i, j, n): old[i:i+n] == new[j:j+n]


class LineMap:
    """Line `n` (1-based) of the newest version -> line of the original."""

    def __init__(self, to_original: list[int] | None = None) -> None:
        self._to_original = to_original

    def __call__(self, line: int) -> int:
        if self._to_original is None:
            return line
        if not self._to_original:
            return 1
        index = min(max(line, 1), len(self._to_original)) - 1
        return self._to_original[index]

    def then(self, old: str, new: str) -> LineMap:
        """The map for `new`, a rewrite of `old` (whose own map is `self`)."""
        old_lines = old.splitlines()
        new_lines = new.splitlines()
        to_old = [1] * len(new_lines)
        for tag, i1, i2, j1, j2 in opcodes(old_lines, new_lines):
            for offset, j in enumerate(range(j1, j2)):
                if tag == "equal":
                    to_old[j] = i1 + offset + 1
                else:
                    # Inserted or replaced lines point at the first old line they replace,
                    # or at the line before an insertion.
                    to_old[j] = min(i1 + offset, i2 - 1) + 1 if i2 > i1 else max(i1, 1)
        return LineMap([self(n) for n in to_old])


def input_to_output(old: str, new: str) -> Callable[[int], int]:
    """Line `n` (1-based) of `old` -> its line in `new`: the same line where it was kept,
    else the first line of what replaced it (or the line where it was deleted)."""
    old_lines = old.splitlines()
    new_lines = new.splitlines()
    to_new = list(range(1, len(old_lines) + 1))
    for tag, i1, i2, j1, j2 in opcodes(old_lines, new_lines):
        if tag == "replace" and (i2 - i1) * (j2 - j1) <= _ALIGNED_PAIRS:
            aligned = _aligned(old_lines[i1:i2], new_lines[j1:j2])
            for offset, j in enumerate(aligned):
                to_new[i1 + offset] = j1 + j + 1
            continue
        for offset, i in enumerate(range(i1, i2)):
            to_new[i] = j1 + min(offset, max(j2 - j1 - 1, 0)) + 1
    last = max(len(new_lines), 1)

    def mapped(line: int) -> int:
        if not to_new:
            return 1
        return min(to_new[min(max(line, 1), len(to_new)) - 1], last)

    return mapped


def _aligned(old: Sequence[str], new: Sequence[str]) -> list[int]:
    """For each line of `old`, the index of the line of `new` that most resembles it, in
    order (several old lines may share one): a rewritten block keeps its lines' order, but a
    statement wrapped in a new `if` moves down by one. By position alone, a warning about the
    second of two rewritten lines (a checkpoint load after a save now under `if
    ddp_is_main():`) had its marker above the save (tests/fixtures/
    rank_zero_save_load_in_while_flag_loop)."""
    n, m = len(old), len(new)
    score = [[_resemblance(a.strip(), b.strip()) for b in new] for a in old]
    step = 1 if m >= n else 0  # one new line each where there are enough, else shared
    # best[i][j]: the most resemblance of old[i:] mapped in order onto new[j:]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]

    def take(i: int, j: int) -> float:
        return score[i][j] + best[i + 1][j + step]

    for i in range(n - 1, -1, -1):
        best[i][m] = float("-inf")
        for j in range(m - 1, -1, -1):
            best[i][j] = max(take(i, j), best[i][j + 1])
    found: list[int] = []
    j = 0
    for i in range(n):
        while j < m - 1 and take(i, j) < best[i][j]:  # the earliest best line
            j += 1
        found.append(j)
        j = min(j + step, m - 1)
    return found


def _resemblance(old: str, new: str) -> float:
    """How much of `old`'s start `new` keeps: a rewrite keeps a statement's head (`loader =
    DataLoader(` of a call now split over lines, `torch.save(` now under an `if`) and changes
    its arguments; the whole-line ratio favoured a long neighbour over the short first line
    of the same statement."""
    return len(os.path.commonprefix([old, new])) / max(len(old), 1)


def opcodes(old: Sequence[str], new: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """SequenceMatcher's opcodes from `old` to `new`, in time about linear in their size."""
    if _cheap(old, new, 0, len(old), 0, len(new)):
        return list(difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes())
    blocks = _merge(_blocks(old, new))
    blocks.append((len(old), len(new), 0))
    result: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for ai, bj, size in blocks:  # as SequenceMatcher.get_opcodes
        tag = ""
        if i < ai and j < bj:
            tag = "replace"
        elif i < ai:
            tag = "delete"
        elif j < bj:
            tag = "insert"
        if tag:
            result.append((tag, i, ai, j, bj))
        i, j = ai + size, bj + size
        if size:
            result.append(("equal", ai, i, bj, j))
    return result


def _cheap(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> bool:
    """Whether SequenceMatcher compares these ranges quickly (few pairs of equal lines)."""
    if ahi - alo > _LINES or bhi - blo > _LINES:
        return False
    counts = Counter(a[alo:ahi])
    return sum(counts.get(line, 0) for line in b[blo:bhi]) <= _PAIRS


def _blocks(a: Sequence[str], b: Sequence[str]) -> list[_Block]:
    """Matching blocks of `a` and `b` (not merged, in no order)."""
    found: list[_Block] = []
    ranges = [(0, len(a), 0, len(b))]
    while ranges:
        alo, ahi, blo, bhi = ranges.pop()
        start = alo
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            alo, blo = alo + 1, blo + 1
        if alo > start:
            found.append((start, blo - (alo - start), alo - start))
        end = ahi
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
        if ahi < end:
            found.append((ahi, bhi, end - ahi))
        if alo == ahi or blo == bhi:
            continue
        if _cheap(a, b, alo, ahi, blo, bhi):
            matcher = difflib.SequenceMatcher(a=a[alo:ahi], b=b[blo:bhi], autojunk=False)
            found.extend((alo + i, blo + j, n) for i, j, n in matcher.get_matching_blocks() if n)
            continue
        anchors = _anchors(a, b, alo, ahi, blo, bhi)
        if not anchors:
            found.extend(_myers(a, b, alo, ahi, blo, bhi))
            continue
        previous_i, previous_j = alo, blo
        for i, j in anchors:
            found.append((i, j, 1))
            ranges.append((previous_i, i, previous_j, j))
            previous_i, previous_j = i + 1, j + 1
        ranges.append((previous_i, ahi, previous_j, bhi))
    return found


def _anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """Lines that occur once in each range, the longest run of them in the same order in
    both (patience diff): (index in a, index in b), ascending."""
    count_a = Counter(a[alo:ahi])
    count_b = Counter(b[blo:bhi])
    where_b = {b[j]: j for j in range(blo, bhi) if count_b[b[j]] == 1}
    pairs = [(i, where_b[a[i]]) for i in range(alo, ahi) if count_a[a[i]] == 1 and a[i] in where_b]
    # Longest increasing subsequence of the b indices (patience sorting).
    tails: list[int] = []  # b index ending the best chain of each length
    tail_at: list[int] = []  # its position in pairs
    back: list[int] = []
    for k, (_, j) in enumerate(pairs):
        length = bisect.bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            tail_at.append(k)
        else:
            tails[length] = j
            tail_at[length] = k
        back.append(tail_at[length - 1] if length else -1)
    chain: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        chain.append(pairs[k])
        k = back[k]
    chain.reverse()
    return chain


def _myers(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[_Block]:
    """Matching blocks of a shortest edit script (Myers 1986), or none (all replaced) when
    that takes more than _MYERS_STEPS steps."""
    n, m = ahi - alo, bhi - blo
    offset = n + m + 1
    v = [0] * (2 * offset + 1)
    trace: list[list[int]] = []
    steps = 0
    for d in range(n + m + 1):
        trace.append(v[offset - d : offset + d + 1] if d else [])
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]
            else:
                x = v[offset + k - 1] + 1
            y = x - k
            while x < n and y < m and a[alo + x] == b[blo + y]:
                x, y = x + 1, y + 1
                steps += 1
            v[offset + k] = x
            steps += 1
            if x >= n and y >= m:
                return _myers_blocks(trace, d, n, m, alo, blo)
        if steps > _MYERS_STEPS:
            return []
    return []


def _myers_blocks(
    trace: list[list[int]], d: int, n: int, m: int, alo: int, blo: int
) -> list[_Block]:
    """Walk Myers' trace back from (n, m): the diagonal runs are the matching blocks."""
    found: list[_Block] = []
    x, y = n, m
    for depth in range(d, 0, -1):
        saved = trace[depth]  # v of step depth - 1, indices -depth .. depth

        def at(k: int, saved: list[int] = saved, depth: int = depth) -> int:
            return saved[k + depth]

        k = x - y
        if k == -depth or (k != depth and at(k - 1) < at(k + 1)):
            previous_k = k + 1
        else:
            previous_k = k - 1
        previous_x = at(previous_k)
        previous_y = previous_x - previous_k
        start_x = previous_x if previous_k == k + 1 else previous_x + 1
        start_y = start_x - k
        if x > start_x:
            found.append((alo + start_x, blo + start_y, x - start_x))
        x, y = previous_x, previous_y
    if x > 0:
        found.append((alo, blo, x))
    return found


def _merge(blocks: list[_Block]) -> list[_Block]:
    """Blocks sorted, adjacent ones joined (as SequenceMatcher's matching blocks are)."""
    merged: list[_Block] = []
    for i, j, n in sorted(blocks):
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + n)
        else:
            merged.append((i, j, n))
    return merged
