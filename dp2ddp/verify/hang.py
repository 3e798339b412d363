"""Where each process of a run waits when the run hangs, and why (harness side).

At a timeout, before the run's processes are ended, every runner still alive is sent
STACK_SIGNAL; its faulthandler (installed by the runner) writes all its threads' Python stacks
to `rank<R>/stack.txt`. The main thread's stack is then cut to the innermost frame of the
user's code (frames inside torch, the standard library, site-packages and dp2ddp are skipped)
and named by its source line: "rank 0 waits in dist.barrier() at train.py:60". The library
frames below it tell whether the process waits in a collective: torch.distributed, DDP's
forward, or the backward pass that runs DDP's gradient all-reduce.

The same reading applies to a rank that *crashed* because its peer left a collective (gloo's
"Connection closed by peer"): its traceback says where it was waiting.
"""

from __future__ import annotations

import io
import json
import linecache
import os
import re
import signal
import sysconfig
import time
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dp2ddp.verify import protocol
from dp2ddp.verify.proctree import ProcessTree
from dp2ddp.verify.report import Cause

WAITS = "waits"  # alive, its stack read
EXITED = "exited"  # the process was gone at the timeout
NO_STACK = "no stack"  # alive, but it gave no stack (not started yet, or stuck in C)

_HEADER = re.compile(r"^(?:Current thread|Thread) (0x[0-9a-fA-F]+) \(most recent call first\):")
_DUMP_FRAME = re.compile(r'^\s+File "(?P<path>.*)", line (?P<line>\d+) in (?P<func>.*?)\s*$')
_TRACEBACK_FRAME = re.compile(r'^\s*File "(?P<path>.*)", line (?P<line>\d+), in (?P<func>.*?)\s*$')
#: gloo's errors when the peer process of a pending collective went away.
_PEER_LOST = re.compile(
    r"Connection (?:closed|reset) by peer|Broken pipe|Socket Timeout|connection refused",
    re.IGNORECASE,
)
_CODE_WIDTH = 70
_STACK_WAIT = 3.0


@dataclass(frozen=True)
class Frame:
    path: str
    line: int
    function: str


@dataclass(frozen=True)
class ProcessState:
    """Where one process of a run was when it hung (or lost its peer)."""

    rank: int | None  # None: the original (one process)
    state: str  # WAITS | EXITED | NO_STACK
    where: str = ""  # "train.py:60" (display path)
    code: str = ""  # the source line there, stripped
    call: str = ""  # the library call it is inside ("barrier"), or "" in the user's own code
    collective: bool = False
    frames: tuple[str, ...] = field(default=())  # the user's frames, outermost first

    @property
    def who(self) -> str:
        return "the original" if self.rank is None else f"rank {self.rank}"

    def describe(self) -> str:
        if self.state == EXITED:
            return f"{self.who} has exited"
        if self.state == NO_STACK or not self.where:
            return f"{self.who} is alive but gave no Python stack"
        what = self.code if self.code and len(self.code) <= _CODE_WIDTH else f"{self.call}()"
        if self.collective:
            extra = " (DDP's gradient all-reduce)" if self.call == "backward" else ""
            return f"{self.who} waits in {what} at {self.where}{extra}"
        inside = f" (in {self.call}, not a collective)" if self.call else " (not a collective)"
        return f"{self.who} is busy in {what} at {self.where}{inside}"


def library_roots() -> tuple[str, ...]:
    """Where code that is not the user's lives: the standard library, site-packages, dp2ddp."""
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots.add(str(Path(__file__).resolve().parent.parent))  # the dp2ddp package
    import torch

    roots.add(str(Path(torch.__file__).resolve().parent))
    return tuple(sorted(os.path.realpath(r) for r in roots))


def is_library(path: str, roots: tuple[str, ...]) -> bool:
    if path.startswith("<"):  # <frozen ...>, <string>
        return True
    real = os.path.realpath(path)
    return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def parse_stack_dump(text: str, main_thread: int | None) -> list[Frame]:
    """The main thread's frames, most recent first, from faulthandler's dump (the last dump
    of that thread when there are several; the first thread's when it cannot be told)."""
    blocks: list[tuple[int, list[Frame]]] = []
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            blocks.append((int(header.group(1), 16), []))
            continue
        frame = _DUMP_FRAME.match(line)
        if frame and blocks:
            blocks[-1][1].append(Frame(frame["path"], int(frame["line"]), frame["func"]))
    mine = [frames for ident, frames in blocks if ident == main_thread]
    if mine:
        return mine[-1]
    return blocks[0][1] if blocks else []


def parse_traceback(text: str) -> list[Frame]:
    """The frames of a Python traceback text, most recent first (like a stack dump)."""
    frames = [
        Frame(m["path"], int(m["line"]), m["func"])
        for m in map(_TRACEBACK_FRAME.match, text.splitlines())
        if m
    ]
    return frames[::-1]


def source_code(line: str) -> str:
    """A source line without its comment (`dist.barrier()  # ...` -> `dist.barrier()`)."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.type == tokenize.COMMENT:
                return line[: token.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):
        pass
    return line.strip()


def _collective_call(library: list[Frame], distributed: bool) -> tuple[bool, str]:
    """Is a process inside these library frames (most recent first) waiting for its peers?"""
    for frame in library:
        path = frame.path.replace(os.sep, "/")
        if "/torch/distributed/" in path and frame.function != "wrapper":
            return True, frame.function
        if path.endswith("/torch/nn/parallel/distributed.py"):
            return True, f"DistributedDataParallel.{frame.function}"
    if distributed and any("/torch/autograd/" in f.path.replace(os.sep, "/") for f in library):
        return True, "backward"
    return False, library[-1].function if library else ""


def process_state(
    rank: int | None,
    frames: list[Frame],
    roots: tuple[str, ...],
    display: Callable[[str], str],
    distributed: bool,
) -> ProcessState:
    """Cut a stack (most recent first) to the user's innermost frame and name the wait."""
    first_user = next((i for i, f in enumerate(frames) if not is_library(f.path, roots)), None)
    if first_user is None:
        return ProcessState(rank, NO_STACK)
    frame = frames[first_user]
    collective, call = _collective_call(frames[:first_user], distributed)
    code = source_code(linecache.getline(frame.path, frame.line).strip())
    user = [f for f in reversed(frames) if not is_library(f.path, roots)]
    return ProcessState(
        rank,
        WAITS,
        where=f"{display(frame.path)}:{frame.line}",
        code=code,
        call=call,
        collective=collective,
        frames=tuple(f"{display(f.path)}:{f.line} in {f.function}" for f in user),
    )


# -- at the timeout: ask every runner still alive for its stack ------------------------------
def request_stacks(run_dir: Path, world: int, tree: ProcessTree) -> dict[int, bool]:
    """Signal each rank's runner (only a process of this launch) and wait briefly for the
    dumps. Returns rank -> alive at the timeout."""
    alive: dict[int, bool] = {}
    asked: list[Path] = []
    sig = getattr(signal, protocol.STACK_SIGNAL_NAME)
    for rank in range(world):
        rank_dir = run_dir / protocol.rank_dir_name(rank)
        try:
            pid = int(json.loads((rank_dir / protocol.PID).read_text())["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            alive[rank] = False
            continue
        alive[rank] = tree.owns(pid)
        if alive[rank]:
            try:
                os.kill(pid, sig)
                asked.append(rank_dir / protocol.STACK)
            except OSError:
                alive[rank] = False
    deadline = time.monotonic() + _STACK_WAIT
    while asked and time.monotonic() < deadline:
        if all(_size(path) > 0 for path in asked):
            time.sleep(0.2)  # let each dump finish
            break
        time.sleep(0.05)
    return alive


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def read_states(
    run_dir: Path,
    world: int,
    alive: dict[int, bool],
    display: Callable[[str], str],
    distributed: bool,
) -> list[ProcessState]:
    roots = library_roots()
    states = []
    for rank in range(world):
        label = rank if distributed else None
        rank_dir = run_dir / protocol.rank_dir_name(rank)
        if not alive.get(rank, False):
            states.append(ProcessState(label, EXITED))
            continue
        try:
            text = (rank_dir / protocol.STACK).read_text(errors="replace")
            main_thread = json.loads((rank_dir / protocol.PID).read_text()).get("main_thread")
        except (OSError, ValueError):
            states.append(ProcessState(label, NO_STACK))
            continue
        frames = parse_stack_dump(text, main_thread if isinstance(main_thread, int) else None)
        states.append(process_state(label, frames, roots, display, distributed))
    return states


def peer_lost(message: str) -> bool:
    """A collective failed because a peer process left it (gloo's error texts)."""
    return bool(_PEER_LOST.search(message))


# -- naming the cause ------------------------------------------------------------------------
_FIX_COLLECTIVE = (
    "Every rank must call each collective (barrier, all_reduce, broadcast, and the DDP model's "
    "forward and backward) the same number of times and in the same order: take the "
    "collective out of the `if rank == 0:` block and guard only the side effect (saving, "
    "printing) with the rank check."
)


def hang_cause(states: list[ProcessState], distributed: bool) -> Cause:
    """The likely cause of a run that hung (or lost a peer), from where each process was."""
    detail = "; ".join(s.describe() for s in states)
    waiting = [s for s in states if s.state == WAITS and s.collective]
    if distributed and waiting:
        same_place = len(waiting) == len(states) and len({s.where for s in waiting}) == 1
        if same_place:
            return Cause(
                "collective_stuck",
                "every rank waits in the same collective",
                detail,
                "The ranks reached the same collective but it does not complete: check that "
                "every rank passes tensors of the same shape and dtype, and the backend's log.",
            )
        return Cause(
            "collective_not_reached",
            "a collective that only some ranks reach",
            detail,
            _FIX_COLLECTIVE,
        )
    return Cause(
        "slow_or_stuck",
        "the run did not end within --timeout",
        detail or "no process gave a stack",
        "Raise --timeout, or shorten the run with the script's own options after `--` (fewer "
        "epochs, a smaller dataset).",
    )
