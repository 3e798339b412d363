"""Which lines of the program the original's run reached in the compared steps, so that a
cause verify names from the code (a loss that compares the batch's rows, a warning of its own
migration) is one the run executed, not a mode the script was not run in.

AberHu/Knowledge-Distillation-Zoo@65470c8 `--kd_mode sp` had IRG's DP040 named (its class is
imported and has a loss-like method name, but `criterionKD = IRG(...)` is another branch of
the mode switch); megvii-research/mdistiller@a08d46f had RKD's and PKT's DP040 named while KD
ran (docs/real-world.md, stop 49). The runner traces line events in the program's own files
(any file outside Python's prefixes, installed packages and dp2ddp) until the compared steps
end; the harness keeps a code-derived cause only where its line was reached. A record without
the lines (an older run) or a file that is not the program's keeps every cause, as before.

Bounded cost outside the program (stop 51): on Python 3.12+ the lines come from
`sys.monitoring` (PEP 669), not a trace function: a code object not of the program reports
its start once and is then disabled for good, and each line of the program reports once
(DISABLE after it is counted), so a library function (pathlib's `__str__`) costs nothing
after its first call. On 3.11 `sys.settrace` is the only way: the thread that installs it
(not threading.settrace: no other thread) calls `_call` at each function start, which
answers from a per-code-object cache (one dict lookup) and gives no local tracer to a frame
not of the program, so such a frame has no line events. stop 50's CI saw an xdist worker
spin 25 minutes at the first line of `pathlib.PurePath.__str__` with this tracer installed
in-process (CPython 3.11.7); it was not reproduced here (docs/real-world.md, stop 51).
"""

from __future__ import annotations

import ast
import os
import re
import sys
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from dp2ddp.verify.records import RankRecord

#: The record's keys: the run's working directory (a relative path not found from verify's
#: own is read from it), and {file: [lines reached]}.
CWD, LINES = "reach_cwd", "reached"
#: Lines first run in a forked child (a DataLoader worker's __getitem__), `line<TAB>path`,
#: appended in the run's folder: a worker ends by os._exit, with no record of its own.
FORKED = "reached_forked.txt"
_NOT_OWN = tuple(
    os.path.join(os.path.realpath(p), "")
    for p in {sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parents[1])}
)


def own_file(path: str) -> bool:
    """A file of the program (`path` real): not Python's, an installed package's or dp2ddp's."""
    return (
        os.path.isabs(path)
        and not path.startswith(_NOT_OWN)
        and "site-packages" not in path
        and "dist-packages" not in path
    )


class LineReach:
    """Line events of the program's files (runner side): one set add per line run. On 3.12+
    by `sys.monitoring` (a line reports once; a code object not of the program, once at its
    start); before, by `sys.settrace`, until every line of a code object has run (then its
    frames are not traced: a loop over a generator expression, a dataset's __getitem__
    without branches cost nothing after)."""

    def __init__(self, outdir: Path | None = None) -> None:
        self.cwd = os.getcwd()
        self._pid = os.getpid()
        self._forked = outdir / FORKED if outdir is not None else None
        self._files: dict[str, set[int] | None] = {}
        #: code -> (its file's reached lines, its lines not yet run), None: not the program's
        #: (or every line has run)
        self._codes: dict[CodeType, tuple[set[int], set[int]] | None] = {}
        self._tool: int | None = None  # the sys.monitoring tool id held (3.12+)
        self.on = False

    def install(self) -> None:
        self.on = True
        if sys.version_info >= (3, 12):
            self._tool = _monitor(self)
        if self._tool is None:
            sys.settrace(self._call)

    def stop(self) -> None:
        """The compared steps are over: no more lines (the frames' tracers return None)."""
        self.on = False
        if sys.version_info >= (3, 12) and self._tool is not None:
            _unmonitor(self._tool, [c for c in self._codes if self._codes[c] is not None])
            self._tool = None
        else:
            sys.settrace(None)

    def record(self) -> dict[str, Any]:
        lines = {path: sorted(seen) for path, seen in self._files.items() if seen}
        return {CWD: self.cwd, LINES: lines}

    def _own(self, code: CodeType) -> tuple[set[int], set[int]] | None:
        name = code.co_filename
        if name not in self._files:
            path = os.path.realpath(name) if not name.startswith("<") else ""
            self._files[name] = set() if own_file(path) else None
        seen = self._files[name]
        entry = None
        if seen is not None:
            lines = {line for _, _, line in code.co_lines() if line is not None}
            entry = (seen, lines - seen)
        self._codes[code] = entry
        return entry

    def _call(self, frame: FrameType, event: str, arg: object) -> Any:
        if not self.on:
            return None
        code = frame.f_code
        entry = self._codes.get(code, _UNSEEN)
        if entry is _UNSEEN:
            entry = self._own(code)
        return None if entry is None else self._line

    def _line(self, frame: FrameType, event: str, arg: object) -> Any:
        if not self.on:
            return None
        if event == "line":
            entry = self._codes.get(frame.f_code)
            if entry is None:
                frame.f_trace_lines = False
                return self._line
            seen, left = entry
            line = frame.f_lineno
            if line not in seen:
                self._seen(seen, line, frame.f_code)
            left.discard(line)
            if not left:  # every line of this code ran: its frames need no more events
                self._codes[frame.f_code] = None
                frame.f_trace_lines = False
        return self._line

    def _seen(self, seen: set[int], line: int, code: CodeType) -> None:
        seen.add(line)
        if self._forked is not None and os.getpid() != self._pid:
            with open(self._forked, "a", encoding="utf-8") as told:
                told.write(f"{line}\t{code.co_filename}\n")

    def started(self, code: CodeType, offset: int) -> Any:
        """sys.monitoring's PY_START: a code object of the program gets its LINE events;
        either way its start is not reported again."""
        if self.on and code not in self._codes and self._own(code) is not None:
            sys.monitoring.set_local_events(self._tool, code, sys.monitoring.events.LINE)  # type: ignore[attr-defined,unused-ignore]
        return sys.monitoring.DISABLE  # type: ignore[attr-defined,unused-ignore]

    def line(self, code: CodeType, line: int) -> Any:
        """sys.monitoring's LINE: counted once, then disabled at that line."""
        entry = self._codes.get(code) if self.on else None
        if entry is not None and line not in entry[0]:
            self._seen(entry[0], line, code)
        return sys.monitoring.DISABLE  # type: ignore[attr-defined,unused-ignore]


_UNSEEN: Any = object()


def _monitor(reach: LineReach) -> int | None:
    """Hold a free sys.monitoring tool id for `reach` (a debugger's or coverage's is left to
    them): PY_START everywhere, LINE in the program's code objects. None: none is free."""
    monitoring = sys.monitoring  # type: ignore[attr-defined,unused-ignore]
    for tool in (4, 3, monitoring.PROFILER_ID):
        if monitoring.get_tool(tool) is None:
            monitoring.use_tool_id(tool, "dp2ddp verify")
            monitoring.register_callback(tool, monitoring.events.PY_START, reach.started)
            monitoring.register_callback(tool, monitoring.events.LINE, reach.line)
            monitoring.set_events(tool, monitoring.events.PY_START)
            return int(tool)
    return None


def _unmonitor(tool: int, codes: list[CodeType]) -> None:
    monitoring = sys.monitoring  # type: ignore[attr-defined,unused-ignore]
    monitoring.set_events(tool, 0)
    for code in codes:
        monitoring.set_local_events(tool, code, 0)
    monitoring.register_callback(tool, monitoring.events.PY_START, None)
    monitoring.register_callback(tool, monitoring.events.LINE, None)
    monitoring.free_tool_id(tool)


class Reached:
    """The original's reached lines (harness side)."""

    def __init__(self, record: RankRecord) -> None:
        data = record.data
        self.known = LINES in data
        self.cwd = str(data.get(CWD, "") or os.getcwd())
        found: dict[str, set[int]] = {}
        for path, lines in dict(data.get(LINES, {})).items():
            found.setdefault(os.path.realpath(path), set()).update(int(n) for n in lines)
        try:
            forked = (record.directory / FORKED).read_text(encoding="utf-8").splitlines()
        except OSError:
            forked = []
        for told in forked:
            line, _, path = told.partition("\t")
            if line.isdigit() and path:
                found.setdefault(os.path.realpath(path), set()).add(int(line))
        self.lines = {path: frozenset(lines) for path, lines in found.items()}
        self._bodies: dict[str, dict[int, tuple[int, int]]] = {}

    def ran(self, path: str, line: int) -> bool:
        """`path:line` ran in the compared steps; True where that is not known (no record,
        or a file that is not the program's)."""
        if not self.known:
            return True
        # relative to verify's own folder (migrate's warnings), else to the run's
        bases = [Path.cwd(), Path(self.cwd)]
        full = os.path.realpath(next((b / path for b in bases if (b / path).exists()), path))
        if not own_file(full):
            return True
        lines = self.lines.get(full, frozenset())
        if full not in self._bodies:
            self._bodies[full] = _bodies(full) if lines else {}
        first, last = self._bodies[full].get(line, (line, line))
        return any(n in lines for n in range(first, last + 1))

    def ran_at(self, place: str) -> bool:
        """`place` begins `path:line` (a warning, a loss site): that line ran."""
        path, _, rest = place.partition(":")
        digits = rest.split(":", 1)[0].split(" ", 1)[0]
        return not digits.isdigit() or self.ran(path, int(digits))

    def warnings(self, warnings: tuple[str, ...]) -> tuple[str, ...]:
        """The warnings (`path:line:col: CODE message`) whose line ran; a DP040 that names the
        classes a loss is bound to (`(path:line: expression; ...): where it is one of them`)
        where one of those places ran, with those places alone."""
        out = []
        for warning in warnings:
            named = _PLACES.search(warning) if " DP040 " in warning else None
            if named is None:
                if self.ran_at(warning):
                    out.append(warning)
                continue
            # told once a scope, at the first call of the loss (KD-Zoo: the `fsp` branch's):
            # the classes' places that ran say that the loss ran, whichever call it was
            places = re.split(r"; (?=\S+?\.py:\d+: )", named[1])
            kept = [p for p in places if self.ran_at(p)]
            if kept:
                out.append(warning[: named.start(1)] + "; ".join(kept) + warning[named.end(1) :])
        return tuple(out)

    def pair_losses(self, sites: tuple[str, ...], warnings: tuple[str, ...]) -> tuple[str, ...]:
        """The losses comparing the batch's rows that ran: the classes the reached DP040 of
        the migration name (their places that ran: the mode in use), then the loss functions
        found by name (scan.pair_losses, `path:line name() (expression)`) whose body ran and
        that no such place already names."""
        said = []
        for warning in warnings:
            named = _PLACES.search(warning) if " DP040 " in warning else None
            if named is not None:
                said += re.split(r"; (?=\S+?\.py:\d+: )", named[1])
        shown = {_key(p) for p in said}
        return tuple(dict.fromkeys(said)) + tuple(
            s for s in sites if self.ran_at(s) and _key(s) not in shown
        )


def _key(place: str) -> tuple[str, str]:
    path, _, rest = place.partition(":")
    return os.path.normpath(path), rest.split(":", 1)[0].split(" ", 1)[0]


_PLACES = re.compile(r"\((\S+?\.py:\d+: .*)\): where it is")


def _bodies(path: str) -> dict[int, tuple[int, int]]:
    """{line of a `def` (and of each of its decorators): (first line of its body, last line)}
    of a file: a definition's own line runs when the definition does (at import, for a
    method), so a place given at it ran when its body did."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError):
        return {}
    out: dict[int, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            span = (node.body[0].lineno, node.end_lineno or node.body[-1].lineno)
            for line in [node.lineno, *(d.lineno for d in node.decorator_list)]:
                out[line] = span
    return out
