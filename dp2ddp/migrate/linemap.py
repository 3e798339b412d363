"""Map line numbers of an intermediate version back to the original input.

Transforms run one after another; each reports positions in its own input. The pipeline
diffs consecutive versions so every warning and change points at the user's file.
"""

from __future__ import annotations

import difflib


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
        matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            for offset, j in enumerate(range(j1, j2)):
                if tag == "equal":
                    to_old[j] = i1 + offset + 1
                else:
                    # Inserted or replaced lines point at the first old line they replace,
                    # or at the line before an insertion.
                    to_old[j] = min(i1 + offset, i2 - 1) + 1 if i2 > i1 else max(i1, 1)
        return LineMap([self(n) for n in to_old])
