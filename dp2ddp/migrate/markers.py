"""`# dp2ddp: DPxxx` markers: a warning that outlives the migration it came from.

`migrate --check` fails while any unsuppressed warning remains (ruff's model: a warning is
a finding), on unmigrated and on migrated files alike. Most warnings are re-derived from the
migrated code, since the passes see it again (a summed loss, a draw in the loop). Some
cannot be: the migration changed what they were about (DP054's barrier-less read is now a
read after a rank-0 write the pass itself guarded; DP001's wrap `dim` is gone with the
wrap). For those codes (`MARKED`, measured by benchmarks/check_after_migrate.py and kept
true by tests/test_fixtures.py), the migration leaves one comment line above the statement
it warned about, and only there:

    # dp2ddp: DP054 file written or removed on rank 0 is used by every rank ...
    data = pickle.load(open(CACHE, "rb"))

`--check` reads the markers back as warnings of the statement below (`findings`), so the
file fails until a person resolves it: fixes the code and deletes the marker, or silences
it with `# noqa: DP054` on the marker or the statement. A warning already silenced when the
migration ran (`ignore`, a noqa comment on its line) leaves no marker. Reading markers is a
substring test and a regular expression, no parse: the no-op path stays instant.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence

from dp2ddp.codes import CODES, title
from dp2ddp.migrate.linemap import input_to_output
from dp2ddp.migrate.suppress import ALL, parse_noqa
from dp2ddp.result import Diagnostic, FileOutcome

#: Codes the passes cannot re-derive from their own output, so the migration marks them.
#: Every other code re-appears when the migrated code is checked (tests/test_fixtures.py
#: fails on a fixture where it does not: move the code here then).
MARKED = frozenset(
    {
        "DP001",
        "DP011",
        "DP012",
        "DP013",
        "DP015",
        "DP018",
        "DP022",
        "DP024",
        "DP025",
        "DP026",
        "DP027",
        "DP028",
        "DP029",
        "DP030",
        "DP031",
        "DP035",
        "DP039",
        "DP041",
        "DP042",
        "DP044",
        "DP045",
        "DP046",
        "DP047",
        "DP048",
        "DP051",
        "DP052",
        "DP053",
        "DP054",
        "DP057",
        "DP058",
        "DP060",
        "DP061",
        "DP062",
        "DP063",
        "DP066",
        "DP068",
        "DP069",
        "DP070",
        "DP071",
        "DP072",
        "DP074",
        "DP077",
        "DP078",
        "DP079",
        "DP080",
        "DP083",
        "DP084",
        "DP085",
        "DP086",
        "DP088",
        "DP090",
        "DP091",
        "DP092",
        "DP095",
        "DP096",
        "DP097",
        "DP098",
        "DP099",
        "DP100",
        "DP102",
        "DP104",
        "DP105",
        "DP106",
        "DP107",
        "DP108",
        "DP114",
        "DP115",  # stop 58 s1: the DataParallel sub-wrap is what the proof starts from
        "DP141",  # stop 59 s1: so is the holder's (a partly wrapped child)
        "DP117",
        "DP118",
        "DP119",
        "DP120",
        "DP123",
        "DP128",  # stop 61 v4: the name is the DDP wrap this migration made, then not re-derived
        "DP130",  # stop 63 v3: its loader's sampler is this migration's, then not re-derived
        "DP134",  # stop 50 s2: the wrapped model (DataParallel) is what the proof starts from
        "DP132",  # stop 50 s1: the save is under the rank-0 guard this migration inserted
        "DP133",  # stop 50 s1: the batch size is ddp_per_rank_batch(...) after this migration
        "DP135",  # stop 49 b3: its loader is sharded by this migration, then not re-derived
        "DP140",  # stop 52 v2: the batch size is ddp_per_rank_batch(...) after this migration
        "DP142",  # stop 51 v3: its loader is sharded by this migration, then not re-derived
        "DP143",  # stop 52 v3: its loader's sampler is this migration's, then not re-derived
        "DP146",  # stop 51 s1: the wrapped model (DataParallel) gates the tensors' proof
        "DP148",  # stop 51 s2: the wrapped model (DataParallel) is what the proof starts from
        "DP152",  # stop 52 s2: the wrapped model (DataParallel) is what the proof starts from
        "DP153",  # stop 63 s1: its loader is sharded by this migration, then not re-derived
        "DP154",  # stop 63 s2: the wrapped model (DataParallel) names what the saver is handed
        "DP156",  # stop 52 w3: the batch size is ddp_per_rank_batch(...) after this migration
        "DP184",  # stop 56 s3: the batch size is ddp_per_rank_batch(...) after this migration
        "DP188",  # stop 55 v4: the DataParallel call is gone with the wrap this migration dropped
        "DP189",  # stop 55 v4: the parts are split by this migration, then not re-derived
        "DP190",  # stop 56 v1: the device guard is gone with the wrap this migration hoisted
        "DP197",  # stop 57 v4: the DataParallel call is gone with the wrap this migration made
        "DP217",  # stop 68: the DataParallel call it is said at is DDP's after this migration
        "DP218",  # stop 69: the pass reads optimizers beside a DataParallel wrap, DDP's now
        "DP225",  # stop 82: the wrap the function returns is DDP's after this migration
    }
)
#: Codes about the rewrite of the text itself (DP110: lines re-indented for libcst's parser,
#: migrate/reindent.py): said once, when the file is migrated. The migrated file has nothing
#: left to say, so `--check` neither re-derives nor marks them.
SAID_ONCE = frozenset({"DP110"})
PREFIX = "# dp2ddp: "
_MARKER = re.compile(r"^([ \t]*)#\s*dp2ddp:\s*(DP\d{3}(?:\s*,\s*DP\d{3})*)\b(.*)$")
_CODE = re.compile(r"DP\d{3}")
#: Why a marker-born warning is there, appended to its title.
MARKER_NOTE = (
    "(marked by dp2ddp migrate: resolve it and delete the marker comment above, or add "
    "`# noqa: {code}`)"
)


def marker_codes(line: str) -> list[str] | None:
    """The codes of a marker comment line, or None when `line` is not one."""
    match = _MARKER.match(line)
    if match is None:
        return None
    return [code for code in _CODE.findall(match.group(2)) if code in CODES]


def findings(source: str) -> list[Diagnostic]:
    """The warnings the markers of `source` stand for, at the statement below each block of
    markers (its first non-marker line; col: its indentation + 1)."""
    if "dp2ddp:" not in source:
        return []
    lines = source.splitlines()
    found: list[Diagnostic] = []
    pending: list[str] = []
    for number, line in enumerate(lines, start=1):
        codes = marker_codes(line)
        if codes is not None:
            silenced = parse_noqa(line[line.index("#") + 1 :])  # its noqa comment
            pending.extend(
                c for c in codes if not (silenced and (silenced is ALL or c in silenced))
            )
            continue
        if pending and line.strip():
            col = len(line) - len(line.lstrip()) + 1
            for code in dict.fromkeys(pending):
                message = f"{title(code)} {MARKER_NOTE.format(code=code)}"
                found.append(Diagnostic(number, col, code, message))
            pending = []
    return found


def merge(diagnostics: Sequence[Diagnostic], source: str) -> tuple[Diagnostic, ...]:
    """`diagnostics` (the passes' warnings about `source`) with the markers' findings of
    `source` that none of them already reports (same code, same statement), in line order."""
    marked = findings(source)
    if not marked:
        return tuple(diagnostics)
    spans = _statement_spans(source)
    reported = {(d.code, _statement(spans, d.line)) for d in diagnostics}
    extra = [d for d in marked if (d.code, _statement(spans, d.line)) not in reported]
    if not extra:
        return tuple(diagnostics)
    return tuple(sorted([*diagnostics, *extra], key=lambda d: (d.line, d.col, d.code)))


def insert(code: str, warnings: Iterable[tuple[int, str]], width: int) -> str:
    """`code` with a marker comment above the statement holding each (line, code) of
    `warnings` (lines of `code`), unless a marker above it already names that code.
    The marker names the title too when the line fits `width`."""
    by_start: dict[int, list[str]] = {}
    spans: list[tuple[int, int]] | None = None
    for line, warned in warnings:
        if warned not in MARKED:
            continue
        if spans is None:
            spans = _statement_spans(code)
        start = _statement(spans, line)
        if start == line and not any(first == line for first, _ in spans):
            # a comment or blank line (a shebang, an encoding cookie): the next statement
            start = next((first for first, _ in spans if first > line), line)
        codes = by_start.setdefault(start, [])
        if warned not in codes:
            codes.append(warned)
    if not by_start:
        return code
    lines = code.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    for start in sorted(by_start, reverse=True):
        index = min(max(start, 1), len(lines)) - 1 if lines else 0
        if not lines:
            break
        present: set[str] = set()
        above = index - 1
        while above >= 0 and (existing := marker_codes(lines[above])) is not None:
            present.update(existing)
            above -= 1
        new = [c for c in by_start[start] if c not in present]
        if not new:
            continue
        target = lines[index]
        indent = target[: len(target) - len(target.lstrip())]
        text = f"{indent}{PREFIX}{', '.join(new)}"
        if len(new) == 1 and len(f"{text} {title(new[0])}") <= width:
            text = f"{text} {title(new[0])}"
        lines.insert(index, text + newline)
    return "".join(lines)


def mark(source: str, code: str, warnings: Iterable[tuple[int, str]], width: int) -> str:
    """`insert` for warnings at lines of `source`, of which `code` is the migration."""
    wanted = [(line, warned) for line, warned in warnings if warned in MARKED]
    if not wanted or code == source:
        return code
    to_new = input_to_output(source, code)
    return insert(code, [(to_new(line), warned) for line, warned in wanted], width)


def _statement_spans(code: str) -> list[tuple[int, int]]:
    """(first, last) line of each logical line of `code`, in order (tokenize's NEWLINE
    ends one): a marker goes above the first line of the statement a warning is in, never
    inside a bracket, string or backslash continuation."""
    import io
    import tokenize  # here: the no-op path (no marker in the file) never needs it

    spans: list[tuple[int, int]] = []
    start: int | None = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
                continue
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if start is not None:
                    spans.append((start, token.start[0]))
                start = None
                continue
            if start is None:
                start = token.start[0]
    except (tokenize.TokenError, SyntaxError):
        return spans
    return spans


def _statement(spans: Sequence[tuple[int, int]], line: int) -> int:
    """The first line of the logical line holding `line` (`line` itself outside any)."""
    low, high = 0, len(spans) - 1
    while low <= high:
        middle = (low + high) // 2
        first, last = spans[middle]
        if line < first:
            high = middle - 1
        elif line > last:
            low = middle + 1
        else:
            return first
    return line


def with_markers(outcomes: Iterable[FileOutcome]) -> list[FileOutcome]:
    """The outcomes with the warnings the markers of each file stand for (`merge`), read
    from the file as it is now (the outcome's source): what `--check` fails on."""
    merged: list[FileOutcome] = []
    for outcome in outcomes:
        result = outcome.result
        if result is not None and not result.generated and "dp2ddp:" in result.source:
            diagnostics = merge(result.diagnostics, result.source)
            if diagnostics != result.diagnostics:
                outcome = dataclasses.replace(
                    outcome, result=dataclasses.replace(result, diagnostics=diagnostics)
                )
        merged.append(outcome)
    return merged
