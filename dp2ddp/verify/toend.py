"""`--to-end`'s checks on two runs that ran to their natural end (harness side, pure).

* **Output printed once.** What the original prints to stdout, rank 0 prints, and no other
  rank prints it again. Lines are compared with their numbers masked (losses drift between
  the runs after the compared steps, timings always differ) and with the migrated run's
  temporary project folder written as the user's.
* **Files written once.** A file opened for writing by two ranks (see `writes`) is written
  once per rank: a race on a checkpoint or a log. Writes to the same path by one rank, e.g.
  a checkpoint every epoch, are fine.
* **One run directory, one reader of the terminal.** A directory made by a rank other than
  rank 0 that rank 0 did not make is a second run directory (a name read from the clock or
  the file system by each rank); a rank other than rank 0 that read stdin took a line rank 0
  did not get (or end of file; at a terminal it waits).
* **Clean exits.** torch 2.x on CPU sometimes aborts at interpreter exit, after the script
  ended, with "terminate called without an active exception" (SIGABRT in a C++ destructor
  of the distributed runtime). Such a rank is recognised precisely: it saved its result as
  finished, torchrun reports exit code -6 for it, and that line ends its stderr. Any other
  non-zero exit is a failure.
* **Final parameters.** Not compared step by step after step K (they may drift legitimately);
  their distance is reported as information.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from dp2ddp.verify import arrays
from dp2ddp.verify.arrays import Vector
from dp2ddp.verify.ratio_cause import warned
from dp2ddp.verify.report import Cause

_NUMBER = re.compile(
    r"0[xX][0-9a-fA-F]+|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|\b(?:nan|inf)\b",
    re.IGNORECASE,
)
KNOWN_EXIT_ABORT = "terminate called without an active exception"
_SIGABRT = -6
#: torchrun's SIGTERM to the other ranks once one has failed.
_SIGTERM = -15
_EXAMPLES = 3


#: Blanks beside a masked number: a figure printed to a fixed width (`{:12.1%}`, `%6.2f`)
#: pads with as many blanks as its value lacks digits, so `top-1  50.0%` and `top-1 100.0%`,
#: `( 10.00)` and `(100.00)` are one line (stop 51 v3: yxgeee/MMT's CMC lines and idstcv/KDA's
#: progress meters were "lines rank 0 did not print", printed with other figures).
_PADDING = re.compile(r"[ \t]*#[ \t]*")


def mask_numbers(line: str) -> str:
    return _NUMBER.sub("#", line).rstrip()


def _key(line: str) -> str:
    """The line's form for pairing: numbers masked, the blanks padding them dropped."""
    return _PADDING.sub("#", mask_numbers(line))


def _lines(text: str, replacements: tuple[tuple[str, str], ...] = ()) -> list[str]:
    for old, new in replacements:
        if old:
            text = text.replace(old, new)
    return [line.rstrip() for line in text.splitlines() if line.strip()]


@dataclass(frozen=True)
class OutputCheck:
    #: rank (>= 1) -> the original's lines it printed as well
    duplicated: dict[int, list[str]] = field(default_factory=dict)
    #: the original's lines that rank 0 does not print (numbers masked)
    missing: list[str] = field(default_factory=list)
    lines: int = 0  # the original's stdout lines
    #: of `missing`, those whose form rank 0 printed too, fewer times: the print is on rank
    #: 0's path and ran; a condition around it decided otherwise (GBNet's `if test_acc >=
    #: best_test_acc:` on another test figure was "keep the original's prints": stop 51, w5)
    fewer: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.duplicated and not self.missing

    def describe(self) -> str:
        if self.passed:
            return f"ok: rank 0 alone printed the original's {self.lines} lines"
        parts = []
        for rank, lines in sorted(self.duplicated.items()):
            shown = "; ".join(repr(line) for line in lines[:_EXAMPLES])
            parts.append(f"rank {rank} also printed {len(lines)} of them ({shown})")
        if self.missing:
            shown = "; ".join(repr(line) for line in self.missing[:_EXAMPLES])
            parts.append(f"rank 0 did not print {len(self.missing)} of them ({shown})")
        return f"of the original's {self.lines} lines: " + ", ".join(parts)


#: The wrapper's name as `print(model)` writes it: the migration must change it (stop 39,
#: v4-E: Tencent/MedicalNet's `print(model)` was "a line rank 0 did not print").
WRAPPER_REPR = ("DistributedDataParallel(", "DataParallel(")


def check_output(
    original: str,
    ranks: list[str],
    replacements: tuple[tuple[str, str], ...] = (),
) -> OutputCheck:
    """Does rank 0 alone print what the original printed (numbers masked)? The model's
    printed wrapper (WRAPPER_REPR) is read as the original's."""
    replacements = (*replacements, WRAPPER_REPR)
    wanted = _lines(original)
    masked = Counter(_key(line) for line in wanted)
    duplicated: dict[int, list[str]] = {}
    for rank, text in enumerate(ranks[1:], start=1):
        again = [line for line in _lines(text, replacements) if _key(line) in masked]
        if again:
            duplicated[rank] = again
    rank0 = Counter(_key(line) for line in _lines(ranks[0], replacements)) if ranks else Counter()
    lacking = masked - rank0
    missing = [line for line in wanted if lacking.get(_key(line), 0) > 0]
    seen: Counter[str] = Counter()
    kept = []
    for line in reversed(missing):  # the last lines of each kind, as many as are missing
        key = _key(line)
        if seen[key] < lacking[key]:
            seen[key] += 1
            kept.append(line)
    fewer = [line for line in kept[::-1] if rank0.get(_key(line), 0) > 0]
    return OutputCheck(duplicated, kept[::-1], len(wanted), fewer)


_FLOAT = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_UNIT = r"(?:s|sec|secs|seconds|ms|min|mins|minutes|h|hours?|it/s|s/it|fps)"
#: A clock's reading named by a word before it (`time: 0.0435`, `Time 0.123 (0.145)`,
#: `Data 0.012`, `eta 0:01:02`, `took 3.2 s`): a meter's time per batch, its data loading
#: time, an estimate. Each is one bounded token: no nested repetition to backtrack over.
_CLOCK_READ = re.compile(
    r"\b(?:time|times|timing|took|elapsed|eta|data|duration|speed|throughput|"
    r"date|fps)\b[ \t]*[:=]?[ \t]*(?:\d+:\d\d(?::\d\d)?(?:\.\d+)?|" + _FLOAT + r")"
    r"(?:[ \t]*\([ \t]*" + _FLOAT + r"[ \t]*\))?(?:[ \t]*" + _UNIT + r"\b)?",
    re.IGNORECASE,
)
#: A number in a clock's unit (`Cost 0.4 sec`, `12ms`, `3.1 it/s`, `12.3 ms/batch`), one
#: after a clock's unit per something (`ms/batch 12.30`, `ms/b 4.1`: pytorch/examples' word
#: language model, round 34: locuslab/trellisnet@ec1de0a, thunlp/DocRED@64622e6, compared as
#: a figure that differed), and a time of day or a duration written with colons (`0:01:02`).
_TIMED = re.compile(
    _FLOAT + r"[ \t]*" + _UNIT + r"(?:/[A-Za-z]+)?(?![\w/])"
    r"|\b(?:ms|s|sec|secs)/[A-Za-z]+\b[ \t]*[:=]?[ \t]*"
    + _FLOAT
    + r"|\b\d+:\d\d(?::\d\d)?(?:\.\d+)?\b"
)


#: A logging record's date and time (`%(asctime)s`: `2026-12-03 06:36:23,412`).
_STAMP = re.compile(r"\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?")


def _figures_part(line: str) -> str | None:
    """The line with its clocks' numbers taken out, the numbers left being training's; None
    where none is left. Taken out: a logging record's time stamp, a reading after a word
    naming a clock (`cls_acc: 0.2500 time: 0.0435 data: 0.0045`), a number in a clock's
    unit (`Cost 0.4 sec`) and a colon-written time. Stop 65 v2 (Jerrypiglet/shaper-
    mirror@d850515): every line logged with `%(asctime)s` named a clock, so no figure of a
    program logging through `logging` was ever compared. Round 29 (stop 77): everything
    after the first clock word was dropped, so `Time 3.1 Loss 0.52` compared nothing, and
    `Cost 0.4 sec` (before its unit) was compared as a figure."""
    text = _TIMED.sub(" ", _CLOCK_READ.sub(" ", _STAMP.sub("", line)))
    return text if _NUMBER.search(text) else None


@dataclass(frozen=True)
class FigureCheck:
    """The numbers of the lines rank 0 printed as the original did (the same line with its
    numbers masked, paired in order of appearance): where the output check counts lines,
    this reads what they hold (stop 39: lightweight OpenPose's epoch figures were rank 0's
    half, and "output ok"). Information only: a run's own randomness (dropout, draws the
    ranks do not share) also moves figures."""

    compared: int = 0
    #: (the original's line, rank 0's line) whose numbers differ beyond their printed precision
    differing: list[tuple[str, str]] = field(default_factory=list)

    def describe(self, same_weights: bool = False) -> str:
        """`same_weights`: the runs ended with the same parameters (end_checks.py), so a
        figure that differs is rank 0's share, not a drift of training."""
        if not self.differing:
            return (
                f"the same numbers in the {self.compared} lines compared (clock figures left out)"
            )
        shown = "; ".join(f"{a!r} -> {b!r}" for a, b in self.differing[:_EXAMPLES])
        counted = f"{len(self.differing)} of {self.compared} lines hold other numbers ({shown})"
        if same_weights:
            return (
                f"{counted}, while the final parameters agree and the ranks are identical: "
                "figures of rank 0's share alone (or of draws made in evaluation only)"
            )
        return (
            f"information only: {counted}: a figure of rank 0's share alone, or randomness "
            "the runs do not share"
        )


def _close(a: str, b: str) -> bool:
    """Equal within what was printed: one unit of the last printed digit, or 0.1%."""
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    if x != x or y != y:
        return (x != x) == (y != y)
    decimals = max(len(t.partition(".")[2].partition("e")[0]) for t in (a.lower(), b.lower()))
    return abs(x - y) <= max(1.5 * 10.0**-decimals, 1e-3 * max(abs(x), abs(y)))


#: What a run writes to stderr that is not the program's own report: Python's warnings (the
#: `file:line: XWarning: text` line and the source line under it), a traceback, torch's C++
#: log lines (`[W1206 11:42:16 ...]`, `W1206 ...`) and the known exit abort.
_WARNING = re.compile(r"^\S.*:\d+: \w*Warning\b")
_NATIVE_LOG = re.compile(r"^\[?[WEIF]\d{4} ")


def logged_text(stderr: str) -> str:
    """The lines of a run's stderr that its program logged (`logging`'s default handler
    writes there): the figures `--to-end` compares besides stdout's. Round 36 (yassouali/
    CCT@65d4e5b): an epoch's figures logged through `logging` were rank 0's half, DP030 said
    so, and `--to-end` said "the same numbers in the 1 lines compared" (stdout's PARAMSUM)."""
    kept: list[str] = []
    skip_source = False
    in_traceback = False
    for line in stderr.splitlines():
        if skip_source and line.startswith((" ", "\t")):
            skip_source = False
            continue
        skip_source = False
        if line.startswith("Traceback (most recent call last)"):
            in_traceback = True
        if in_traceback:
            in_traceback = line.startswith((" ", "\t", "Traceback")) or not line.strip()
            continue
        if _WARNING.match(line):
            skip_source = True
            continue
        if _NATIVE_LOG.match(line) or KNOWN_EXIT_ABORT in line:
            continue
        kept.append(line)
    return "\n".join(kept)


def check_figures(
    original: str, rank0: str, replacements: tuple[tuple[str, str], ...] = ()
) -> FigureCheck:
    """Pair each line the original printed with rank 0's line of the same masked form (the
    k-th with the k-th) and compare their numbers, those a clock gives left out
    (_figures_part)."""
    ours: dict[str, list[str]] = {}
    for line in _lines(rank0, (*replacements, WRAPPER_REPR)):
        ours.setdefault(_key(line), []).append(line)
    taken: Counter[str] = Counter()
    compared = 0
    differing: list[tuple[str, str]] = []
    for line in _lines(original):
        key = _key(line)
        if key not in ours or taken[key] >= len(ours[key]):
            continue
        mine = ours[key][taken[key]]
        taken[key] += 1
        figures, ours_part = _figures_part(line), _figures_part(mine)
        if figures is None or ours_part is None or "#" not in key:
            continue
        compared += 1
        numbers = zip(_NUMBER.findall(figures), _NUMBER.findall(ours_part), strict=False)
        if not all(_close(a, b) for a, b in numbers):
            differing.append((line.strip(), mine.strip()))
    return FigureCheck(compared, differing)


def shared_writes(writes: list[list[str]]) -> dict[str, list[int]]:
    """Paths opened for writing by more than one rank: path -> the ranks, in path order."""
    ranks: dict[str, list[int]] = {}
    for rank, paths in enumerate(writes):
        for path in dict.fromkeys(paths):
            ranks.setdefault(path, []).append(rank)
    return {path: who for path, who in sorted(ranks.items()) if len(who) > 1}


def unmatched_files(original: list[str], migrated: list[list[str]]) -> tuple[list[str], list[str]]:
    """(files the original wrote that no rank did, files a rank wrote that the original did
    not), each sorted; `original` as paths of the migrated run's folder (in_migrated_copy).
    "files ok" spoke only of the ranks' writes, whatever their names: a checkpoint named by
    the wrapper's class (`f"{model.__class__.__name__}_1.bin"`: Transformer_1.bin, then
    DistributedDataParallel_1.bin) went unsaid (WiseDoge/CoupletAI@fc052f8, stop 56 v2).
    A name made from the clock, a host or a process id differs from run to run as well:
    information, not a verdict."""
    theirs = {path for paths in migrated for path in paths}
    mine = set(original)
    return sorted(mine - theirs), sorted(theirs - mine)


def own_directories(
    directories: list[list[str]],
    rank0_writes: list[str] | tuple[str, ...] = (),
    original: list[str] | tuple[str, ...] = (),
) -> dict[str, list[int]]:
    """Directories made by ranks other than rank 0 and not by rank 0: path -> those ranks.

    Rank 0 asking for a directory asks for its parents too: `os.makedirs(p, exist_ok=True)`
    and `Path(p).mkdir(parents=True)` make (and audit) only the parents missing at that
    moment, so when every rank makes the same `runs/exp/ckpt` and rank 1 comes first, rank 1
    alone was seen making `runs/exp`. A parent of a directory rank 0 made is rank 0's too
    (fresh round V5: SCAN's `mkdir_if_missing` at import was "made by rank 1 only"). So is
    a folder rank 0 wrote a file into (`rank0_writes`): rank 0 skipped making it only
    because rank 1 had, after `if not os.path.exists(d)`; a second run directory (rank 1's
    own clock or index) is one rank 0 never uses. So is a directory the original made too
    (`original`, as paths of the migrated copy) when rank 0 made none the original did not:
    every rank named the original's folders and rank 1 came first (stop 34, FFA-Net's
    `logs`, `samples` under exists-checks); a first free index taken in the wrong order
    (rank 0 `exp_1`, rank 1 `exp_0`) still counts, rank 0's `exp_1` being no original's."""
    made: set[str] = set()
    rank0 = directories[0] if directories else []
    starts = [*rank0, *map(os.path.dirname, rank0_writes)]
    if original and set(rank0) <= set(original):
        starts += original
    for path in starts:
        while path not in made:
            made.add(path)
            parent = os.path.dirname(path)
            if parent == path:
                break
            path = parent
    found: dict[str, list[int]] = {}
    for rank, paths in enumerate(directories[1:], start=1):
        for path in dict.fromkeys(paths):
            if path not in made:
                found.setdefault(path, []).append(rank)
    return dict(sorted(found.items()))


def stdin_readers(reads: list[int]) -> list[int]:
    """Ranks other than rank 0 that read stdin."""
    return [rank for rank, count in enumerate(reads) if rank and count]


def agreement_causes(
    own_directories: dict[str, list[int]],
    stdin_readers: list[int],
    display: Callable[[str], str],
) -> list[Cause]:
    """The causes of a rank that made its own directory or read stdin (issue 29)."""
    causes = []
    if own_directories:
        causes.append(
            Cause(
                "directory_per_rank",
                "a directory made by a rank that rank 0 did not make",
                "; ".join(
                    f"{display(path)} by rank {', '.join(map(str, ranks))}"
                    for path, ranks in own_directories.items()
                ),
                "Name run directories with rank 0's value: a name read from the clock, a "
                "random draw or the file system (a first free index) differs between ranks "
                "(`ddp_rank0_value(...)`, DP053).",
            )
        )
    if stdin_readers:
        causes.append(
            Cause(
                "stdin_per_rank",
                "stdin read by a rank other than rank 0",
                "rank " + ", ".join(map(str, stdin_readers)),
                "Read the terminal on rank 0 and pass the answer on "
                "(`ddp_stdin(input, prompt)`, DP055).",
            )
        )
    return causes


def torchrun_exit_codes(log: str) -> dict[int, int]:
    """rank -> exit code of each failed worker in torchrun's failure summary."""
    codes: dict[int, int] = {}
    rank: int | None = None
    for line in log.splitlines():
        text = line.strip()
        found = re.match(r"rank\s*:\s*(\d+)", text)
        if found:
            rank = int(found.group(1))
            continue
        found = re.match(r"exitcode\s*:\s*(-?\d+)", text)
        if found and rank is not None:
            codes[rank] = int(found.group(1))
            rank = None
    return codes


def ends_with_known_abort(stderr: str) -> bool:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return bool(lines) and lines[-1] == KNOWN_EXIT_ABORT


def known_exit_aborts(
    returncode: int | None,
    finished: list[bool],
    stderrs: list[str],
    codes: dict[int, int],
    distributed: bool,
) -> list[int] | None:
    """The ranks whose non-zero exit is torch's known abort at exit (None: not that case).

    `finished[r]`: rank r saved its result as finished (its script ended normally); `codes`:
    torchrun's per-rank exit codes (ignored for the original, a single process). A finished
    rank torchrun stopped with SIGTERM (-15) once another had aborted counts too, as in
    torchrun_console_shows_known_abort; at least one rank must show the abort itself."""
    if returncode in (0, None) or not finished or not all(finished):
        return None
    if not distributed:
        return [0] if returncode == _SIGABRT and ends_with_known_abort(stderrs[0]) else None
    if not codes or any(rank >= len(stderrs) for rank in codes):
        return None
    aborted = [r for r, c in codes.items() if c == _SIGABRT and ends_with_known_abort(stderrs[r])]
    if not aborted or any(c != _SIGTERM for r, c in codes.items() if r not in aborted):
        return None
    return sorted(codes)


def torchrun_console_shows_known_abort(console: str, script: str) -> bool:
    """A torchrun console whose only failure is torch's known abort at exit: the abort's
    message, exit -6 as torchrun's root cause, the other failed ranks -6 too or -15 (the
    SIGTERM torchrun sends once the first rank failed), and no traceback raised in
    `script` (the file name torchrun ran). Shared by the tests and CI's newcomer run,
    which read one console, not per-rank stderr (known_exit_aborts)."""
    codes = torchrun_exit_codes(console)
    return (
        KNOWN_EXIT_ABORT in console
        and "exitcode  : -6" in console.split("Root Cause", 1)[-1]
        and bool(codes)
        and set(codes.values()) <= {-6, -15}
        and f'{script}", line' not in console
    )


def final_distance(
    original: dict[str, Vector], migrated: dict[str, Vector], names: dict[str, str]
) -> tuple[float, str] | None:
    """The largest relative L2 distance between the two runs' final parameters, and where."""
    worst: tuple[float, str] | None = None
    for key, a in original.items():
        b = migrated.get(key)
        if b is None or b.shape != a.shape:
            continue
        norm = arrays.norm(a.values)
        diff = arrays.distance(a.values, b.values)
        rel = diff / norm if norm > 0 else (0.0 if diff == 0 else math.inf)
        if math.isnan(rel):
            rel = math.inf
        if worst is None or rel > worst[0]:
            worst = (rel, names.get(key, key))
    return worst


def to_end_causes(
    output: OutputCheck,
    shared: dict[str, list[int]],
    display: Callable[[str], str],
    own_directories: dict[str, list[int]] | None = None,
    stdin_readers: list[int] | None = None,
    warnings: tuple[str, ...] = (),
) -> list[Cause]:
    """--to-end findings: files written by several ranks, output printed by several ranks
    or missing on rank 0, a directory a rank made that rank 0 did not, stdin read by a rank
    other than rank 0. `warnings`: verify's own migration's; where it said that a count of
    this rank's samples decides when to print (DP092), a print rank 0 left out or printed
    fewer times is named with that line, not "keep the original's prints" (the print is
    kept; the count deciding it grows by rank 0's share: stop 51 s1-B, docs/real-world.md)."""
    causes = agreement_causes(own_directories or {}, stdin_readers or [], display)
    counted = warned(warnings, "DP092")
    by_count = (
        f"; dp2ddp migrate warned DP092 at {'; '.join(counted[:3])}: a count of samples "
        "grown by this rank's batches decides when to print, so rank 0's count grows by "
        "its share and meets the condition later, or never"
        if counted
        else ""
    )
    count_fix = (
        "Count the global batch at that line (all-reduce the count, or count steps), as "
        "DP092 says; the print itself needs no change."
    )
    if shared:
        causes.append(
            Cause(
                "written_per_rank",
                "files written by more than one rank",
                "; ".join(
                    f"{display(path)} by ranks {', '.join(map(str, ranks))}"
                    for path, ranks in shared.items()
                ),
                "Write files on rank 0 only (`if ddp_is_main():`), or give each rank its own "
                "file on purpose; a folder every rank creates needs exist_ok=True.",
            )
        )
    if output.duplicated:
        causes.append(
            Cause(
                "duplicated_output",
                "the original's output printed by more than one rank",
                output.describe(),
                "Print on rank 0 only (`if ddp_is_main():`).",
            )
        )
    dropped = [line for line in output.missing if line not in output.fewer]
    if dropped:
        shown = "; ".join(repr(line) for line in dropped[:_EXAMPLES])
        causes.append(
            Cause(
                "output_missing",
                "rank 0 does not print what the original printed",
                f"of the original's {output.lines} lines, rank 0 never printed a line of the "
                f"form of {len(dropped)} ({shown})" + by_count,
                count_fix if counted else "Keep the original's prints in the migration, on rank 0.",
            )
        )
    if output.fewer:
        shown = "; ".join(repr(line) for line in output.fewer[:_EXAMPLES])
        causes.append(
            Cause(
                "output_fewer",
                "rank 0 printed some of the original's lines fewer times",
                f"{len(output.fewer)} of the original's {output.lines} lines ({shown}): rank 0 "
                "printed lines of their form too, so the print is kept on rank 0's path and "
                "ran; a condition around it (a figure compared, a count) decided otherwise"
                + by_count,
                count_fix
                if counted
                else "Compare the figures that decide that print (the other figures above, a "
                "figure of rank 0's share alone: DP030, per-process BatchNorm statistics: "
                "DP008); the print itself needs no change.",
            )
        )
    return causes
