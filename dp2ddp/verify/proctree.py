"""Find and end every process a launch started, including torchrun's workers.

torchrun starts each worker in its own session, so killing the launcher's process group
does not reach them. The tracker therefore records the launcher's descendants while it runs
(pid and start time, so that a reused pid is never taken for one of ours) and, at a timeout
or at the end, signals their process groups: SIGTERM first, SIGKILL after a grace period.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

_PROC = Path("/proc")


def _children_table() -> dict[int, list[int]]:
    """ppid -> pids of all processes (via /proc, else `ps`)."""
    table: dict[int, list[int]] = {}
    if _PROC.is_dir():
        for entry in _PROC.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2 :].split()
            table.setdefault(int(fields[1]), []).append(int(entry.name))
        return table
    try:
        out = subprocess.run(
            ["ps", "-A", "-o", "pid=", "-o", "ppid="], capture_output=True, text=True, check=False
        ).stdout
    except OSError:
        return table
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
            table.setdefault(int(parts[1]), []).append(int(parts[0]))
    return table


def _children_of(pid: int) -> list[int] | None:
    """The children of `pid` from /proc/PID/task/*/children: a few reads, where the whole
    table reads every process's stat (costly on a busy machine, twice a second). None: the
    kernel has no such files (then the caller reads the whole table)."""
    task = _PROC / str(pid) / "task"
    try:
        threads = os.listdir(task)
    except OSError:
        return []  # gone
    children: list[int] = []
    for thread in threads:
        try:
            text = (task / thread / "children").read_text()
        except FileNotFoundError:
            if (task / thread).exists():
                return None
            continue
        except OSError:
            continue
        children += [int(child) for child in text.split()]
    return children


def _start_time(pid: int) -> str | None:
    """An identity for the process behind `pid` (None: gone or unknown)."""
    if _PROC.is_dir():
        try:
            stat = (_PROC / str(pid) / "stat").read_text()
        except OSError:
            return None
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[0] == "Z":
            return None
        return fields[19]
    try:
        os.kill(pid, 0)
    except OSError:
        return None
    return "alive"


class ProcessTree:
    """The processes started from one Popen (itself in its own session)."""

    def __init__(self, root: subprocess.Popen[bytes]):
        self.root = root
        self.known: dict[int, str] = {}

    def observe(self) -> None:
        table: dict[int, list[int]] | None = None
        stack = [self.root.pid]
        while stack:
            parent = stack.pop()
            children = _children_of(parent) if table is None and _PROC.is_dir() else None
            if children is None:
                table = table if table is not None else _children_table()
                children = table.get(parent, [])
            for child in children:
                if child not in self.known:
                    started = _start_time(child)
                    if started is not None:
                        self.known[child] = started
                stack.append(child)

    def owns(self, pid: int) -> bool:
        """`pid` is one of this launch's processes and still alive (not a reused pid)."""
        started = self.known.get(pid)
        return started is not None and _start_time(pid) == started

    def alive(self) -> list[int]:
        return [pid for pid, started in self.known.items() if _start_time(pid) == started]

    def kill(self, grace: float = 3.0) -> None:
        """SIGTERM the launcher's group and every known descendant's group, then SIGKILL."""
        if self.root.poll() is None:
            self.observe()
        self._signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if self.root.poll() is not None and not self.alive():
                break
            time.sleep(0.05)
        self._signal(signal.SIGKILL)
        try:
            self.root.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass

    def _signal(self, sig: signal.Signals) -> None:
        targets = self.alive()
        if self.root.poll() is None:
            targets.append(self.root.pid)
        groups: set[int] = set()
        for pid in targets:
            try:
                groups.add(os.getpgid(pid))
            except OSError:
                continue
        for group in groups:
            if group <= 1 or group == os.getpgrp():
                continue  # never our own group, never init's
            try:
                os.killpg(group, sig)
            except OSError:
                pass
        for pid in targets:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
